"""Independent runs on several processes: results in job order and the same as one by one (a learning curve,
ULMFiT's comparisons and features, Transformers fine-tuned), progress in job order in this process, a failing
job named with its own exception, a dead or interrupted worker leaves nothing behind, and a parent that has
trained with autograd forks workers that train with autograd."""

import multiprocessing
import os
import signal
import time

import numpy as np
import pytest
import torch

import course.core.parallel
from course.core.errors import SettingError
from course.core.parallel import (
    GPU_WORKERS,
    available_cores,
    can_fork,
    longest_first,
    run_calls,
    run_jobs,
    worker_count,
)
from course.elmo import ElmoConfig, train_elmo
from course.tagger import ElmoFeatures, TaggerConfig
from course.tagger.curves import learning_curve
from course.tasks.ner import NerData, TaggedSentence
from course.tasks.reviews import Review, ReviewData
from course.text.corpus import from_sentences
from course.ulmfit import ClassifierConfig, LanguageModelConfig, fine_tune_lm
from course.ulmfit.experiments import compare, features, forgetting, variant_calls

forks = pytest.mark.skipif(not can_fork(), reason="jobs run in forked processes only where PyTorch sees no GPU")
TINY_ELMO = dict(char_dim=4, filters=((1, 8), (2, 8)), highway_layers=1, projection_dim=8, lstm_dim=16, num_layers=2,
                 softmax="full", min_count=1, batch_tokens=300, device="cpu", heldout_every=20)


def same_rows(first, second):
    """Every value of every row equal, but the seconds each run took."""
    def strip(rows):
        return [{key: value for key, value in row.items() if key != "seconds"} for row in rows]
    return strip(first) == strip(second)


# ------------------------------------------------------------------------------------------- the jobs


def square_and_pid(n, spins=0):
    total = 0
    for i in range(spins):  # earlier jobs work longer, so later ones finish first
        total += i
    return n * n, os.getpid(), torch.get_num_threads()


def fail_on(n, bad):
    if n == bad:
        raise ValueError(f"bad value {n}")
    return n


def refuse(n):
    raise SettingError(f"job {n} refused")


def fail_in(n, bad):
    if n in bad:
        raise ValueError(f"bad value {n}")
    return n, time.time()


def die_on(n, bad):
    if n == bad:
        os.kill(os.getpid(), signal.SIGKILL)
    return n


def nested(n):
    return run_jobs(square_and_pid, [(n,), (n + 1,)], workers=2)


def sleep_unless_first(n):
    if n:
        time.sleep(60)
    return n


def fit_line(seed, steps=30):
    """Gradient descent with autograd on a least-squares line: the weights after ``steps`` steps."""
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(64, 3, generator=generator)
    y = x @ torch.tensor([1.0, -2.0, 0.5]) + 0.1 * torch.randn(64, generator=generator)
    weights = torch.zeros(3, requires_grad=True)
    for _ in range(steps):
        loss = ((x @ weights - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            weights -= 0.1 * weights.grad
            weights.grad.zero_()
    return weights.detach().numpy().tolist(), loss.item()


# ---------------------------------------------------------------------------------------- run_jobs


@forks
def test_results_come_in_job_order_from_worker_processes_of_one_thread():
    jobs = [(n, 200_000 * (6 - n)) for n in range(6)]
    results = run_jobs(square_and_pid, jobs, workers=2)
    assert [r[0] for r in results] == [n * n for n in range(6)]
    pids = {r[1] for r in results}
    assert os.getpid() not in pids and 1 <= len(pids) <= 2
    assert {r[2] for r in results} == {1}
    assert multiprocessing.active_children() == []


def test_one_worker_runs_the_plain_loop_here_on_one_thread_and_keyword_jobs_work():
    before = torch.get_num_threads()
    results = run_jobs(square_and_pid, [{"n": n} for n in range(3)], workers=1)
    assert [r[:2] for r in results] == [(0, os.getpid()), (1, os.getpid()), (4, os.getpid())]
    if can_fork():  # as in a worker, so that the results do not depend on the number of workers
        assert {r[2] for r in results} == {1}
    assert torch.get_num_threads() == before
    assert run_jobs(square_and_pid, [], workers=2) == []


@pytest.mark.parametrize("workers", [1, 2])
def test_on_result_is_called_here_in_job_order(workers):
    seen = []
    jobs = [(n, 100_000 * (5 - n)) for n in range(5)]
    results = run_jobs(square_and_pid, jobs, workers=workers,
                       on_result=lambda index, result: seen.append((index, result[0], os.getpid())))
    assert seen == [(n, n * n, os.getpid()) for n in range(5)]
    assert [r[0] for r in results] == [n * n for n in range(5)]


@pytest.mark.parametrize("workers", [1, 2])
def test_the_first_failing_job_raises_its_own_exception_naming_the_job_as_the_loop_would(workers):
    seen = []
    with pytest.raises(ValueError, match="bad value 3") as caught:
        run_jobs(fail_on, [(n, 3) for n in range(6)], workers=workers, on_result=lambda index, _: seen.append(index))
    assert seen == [0, 1, 2]
    notes = "\n".join(caught.value.__notes__)
    assert "in job 4 of 6: (3, 3)" in notes
    if workers > 1 and can_fork():
        assert "the worker's traceback" in notes and "fail_on" in notes
    for _ in range(5):  # every job fails: the first in job order is the one raised, whichever worker ends first
        with pytest.raises(SettingError, match="job 0 refused"):  # a user's mistake stays one (exit status 2)
            run_jobs(refuse, [(0,), (1,), (2,)], workers=workers)
    assert multiprocessing.active_children() == []


@forks
def test_an_order_changes_which_jobs_start_first_and_nothing_else():
    seen = []
    jobs = [(n, ()) for n in range(6)]
    order = [5, 4, 3, 2, 1, 0]
    for _ in range(3):
        results = run_jobs(fail_in, jobs, workers=2, order=order, on_result=lambda index, _: seen.append(index))
        assert [n for n, _ in results] == list(range(6)) and seen == list(range(6))
        started = [at for _, at in results]
        assert min(started[4:]) < min(started[:4])  # the last two jobs went first
        seen.clear()
    # a failure: the jobs before it in job order still run, so the one raised is the first in job order
    for bad in ((3,), (1, 3), (4, 0)):
        with pytest.raises(ValueError, match=f"bad value {min(bad)}"):
            run_jobs(fail_in, [(n, bad) for n in range(6)], workers=2, order=order,
                     on_result=lambda index, _: seen.append(index))
        assert seen == list(range(min(bad)))
        seen.clear()
    assert multiprocessing.active_children() == []


def test_longest_first_and_orders_that_are_not_one_of_each_job_are_refused():
    assert longest_first([1.0, 3.0, 2.0, 3.0]) == [1, 3, 2, 0]
    assert longest_first([]) == []
    for bad in ([0, 1], [0, 1, 1], [0, 1, 3]):
        with pytest.raises(SettingError, match="order must hold each job's index"):
            run_jobs(fail_in, [(n, ()) for n in range(3)], workers=2, order=bad)
    assert run_calls([(fail_in, (n, ())) for n in range(3)], workers=1, order=[2, 1, 0])[2][0] == 2


@forks
def test_jobs_that_run_jobs_run_them_in_their_own_worker():
    for n, inner in zip((1, 5), run_jobs(nested, [(1,), (5,)], workers=2), strict=True):
        assert [r[0] for r in inner] == [n * n, (n + 1) ** 2]
        assert len({r[1] for r in inner}) == 1 and inner[0][1] != os.getpid()  # in the worker, not forked again
    assert multiprocessing.active_children() == []


@forks
def test_a_worker_that_dies_is_reported_and_the_others_are_stopped():
    with pytest.raises(RuntimeError, match=r"worker process ended \(exit code -9\)") as caught:
        run_jobs(die_on, [(n, 1) for n in range(4)], workers=2)
    assert "in job 2 of 4: (1, 1)" in "\n".join(caught.value.__notes__)
    assert multiprocessing.active_children() == []


@forks
def test_an_interrupt_stops_every_worker():
    def interrupt(index, result):
        os.kill(os.getpid(), signal.SIGINT)  # as Ctrl-C, or a notebook's interrupt, would

    # Python's own handler, as in a terminal or a kernel: an earlier test in this process may have left
    # another (nbclient puts asyncio's in place while it starts a kernel, and leaves it if the start fails)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            run_jobs(sleep_unless_first, [(0,), (1,), (2,)], workers=2, on_result=interrupt)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert multiprocessing.active_children() == []


# ------------------------------------------------------- spawned workers (where PyTorch sees a GPU)


SET_IN_THIS_PROCESS = {}  # a forked worker sees what was put here before it started; a spawned one does not


def tensor_sum(n, tensor, anything=None):
    return n, float(tensor.sum()), os.getpid(), torch.get_num_threads(), SET_IN_THIS_PROCESS.get("set")


@pytest.fixture
def spawning(monkeypatch):
    """Jobs run as they do where PyTorch sees a GPU: in spawned workers, started afresh (here on the CPU)."""
    monkeypatch.setattr(course.core.parallel, "start_method", lambda: "spawn")


def test_spawned_workers_receive_the_jobs_tensors_included_and_give_what_the_loop_gives(spawning, monkeypatch):
    monkeypatch.setitem(SET_IN_THIS_PROCESS, "set", True)
    tensor = torch.arange(12.0).reshape(3, 4)
    results = run_jobs(tensor_sum, [(n, tensor * n) for n in range(5)], workers=2)
    assert [r[:2] for r in results] == [(n, 66.0 * n) for n in range(5)]
    assert os.getpid() not in {r[2] for r in results} and {r[3] for r in results} == {1}
    assert {r[4] for r in results} == {None}  # started afresh, not forked
    here = [fit_line(seed) for seed in range(3)]
    assert run_calls([(fit_line, (seed,)) for seed in range(3)], workers=2) == here
    with pytest.raises(ValueError, match="bad value 2") as caught:
        run_jobs(fail_on, [(n, 2) for n in range(4)], workers=2)
    assert "the worker's traceback" in "\n".join(caught.value.__notes__)
    assert multiprocessing.active_children() == []


def test_a_learning_curve_gives_the_same_rows_in_spawned_workers_as_one_by_one(spawning):
    data = toy_ner()
    elmo = train_elmo(from_sentences([list(s.words) for s in data.train]), ElmoConfig(**TINY_ELMO, epochs=1),
                      progress=False)
    config = TaggerConfig(epochs=3, evaluations=1, word_dim=16, hidden_dim=16, device="cpu")
    rows = {workers: learning_curve(data, ["learned", "elmo"], [40], [1, 2], data.dev, data.test, elmo=elmo,
                                    config=config, workers=workers) for workers in (1, 2)}
    assert same_rows(rows[1], rows[2]) and len(rows[2]) == 4


def test_jobs_that_cannot_be_sent_to_spawned_workers_run_here_with_a_note(spawning, capsys):
    def local(n):
        return n + 1, os.getpid()

    assert run_jobs(local, [(n,) for n in range(3)], workers=2) == [(n + 1, os.getpid()) for n in range(3)]
    assert "local is not importable by name" in capsys.readouterr().err
    results = run_jobs(tensor_sum, [(n, torch.ones(2)) for n in range(2)] + [(2, torch.ones(2), lambda: 0)],
                       workers=2)
    assert [r[2] for r in results] == [os.getpid()] * 3  # all of them here, none half sent
    assert "cannot be sent to processes of their own" in capsys.readouterr().err
    assert multiprocessing.active_children() == []


def test_a_variable_chooses_how_workers_start_and_nonsense_is_refused(monkeypatch):
    monkeypatch.setenv(course.core.parallel.START_ENV, "spawn")
    monkeypatch.setitem(SET_IN_THIS_PROCESS, "set", True)
    assert course.core.parallel.start_method() == "spawn" and not can_fork()
    assert {r[4] for r in run_jobs(tensor_sum, [(n, torch.ones(1)) for n in range(2)], workers=2)} == {None}
    monkeypatch.setenv(course.core.parallel.START_ENV, "none")
    here = run_jobs(tensor_sum, [(n, torch.ones(1)) for n in range(2)], workers=2)
    assert {r[2] for r in here} == {os.getpid()}
    if not torch.cuda.is_available():  # one thread, as in a worker, so that the results are the workers'
        assert {r[3] for r in here} == {1}
    monkeypatch.setenv(course.core.parallel.START_ENV, "thread")
    with pytest.raises(SettingError, match="COURSE_WORKER_START=thread is not a way to start workers"):
        run_jobs(tensor_sum, [(0, torch.ones(1))], workers=2)


def test_at_most_a_few_spawned_workers_share_a_gpu_unless_asked_for_more(spawning):
    assert worker_count(None, 50) == min(available_cores(), GPU_WORKERS)
    assert worker_count(6, 50) == 6 and worker_count(None, 1) == 1


def test_worker_count_uses_the_cores_this_process_may_use_and_refuses_nonsense():
    expected = min(available_cores(), 3) if can_fork() else 1
    assert worker_count(None, 3) == expected
    assert worker_count(8, 1) == 1
    assert worker_count(1, 5) == 1
    for bad in (0, -1, 1.5, True):
        with pytest.raises(SettingError, match="workers must be a positive whole number"):
            worker_count(bad, 4)


@forks
def test_a_parent_that_trained_with_autograd_forks_workers_that_do_too():
    here = fit_line(0)  # autograd in this process first
    assert run_jobs(fit_line, [(seed,) for seed in range(4)], workers=2) == [here] + [fit_line(s) for s in (1, 2, 3)]


# ------------------------------------------------------------------ the experiments: same rows, any workers


def toy_ner(seed=0):
    """Sentences of five words, one of them a person's name (20 names) after 'mr' most of the time."""
    rng = np.random.default_rng(seed)
    names, others = [f"name{i}" for i in range(20)], [f"word{i}" for i in range(30)]

    def sentences(count):
        out = []
        for _ in range(count):
            words = [str(word) for word in rng.choice(others, 5)]
            at = int(rng.integers(1, 5))
            words[at] = str(rng.choice(names))
            if rng.random() < 0.8:
                words[at - 1] = "mr"
            out.append(TaggedSentence(tuple(words), tuple("B-PER" if i == at else "O" for i in range(5))))
        return out

    return NerData(sentences(200), sentences(30), sentences(60))


@forks
def test_a_learning_curve_gives_the_same_rows_on_two_workers_as_one_by_one():
    data = toy_ner()
    elmo = train_elmo(from_sentences([list(s.words) for s in data.train]), ElmoConfig(**TINY_ELMO, epochs=1),
                      progress=False)  # trained here with autograd before the workers fork
    config = TaggerConfig(epochs=4, evaluations=2, word_dim=16, hidden_dim=16, device="cpu")
    rows = {workers: learning_curve(data, ["learned", "elmo", "elmo-finetuned"], [40], [1, 2], data.dev, data.test,
                                    elmo=elmo, config=config, workers=workers) for workers in (1, 2)}
    assert [(r["input"], r["seed"]) for r in rows[2]] == [(name, seed) for name in ("learned", "elmo", "elmo-finetuned")
                                                          for seed in (1, 2)]
    assert max(r["f1"] for r in rows[1]) > 0.3  # the taggers learned something: their labels are worth comparing
    assert same_rows(rows[1], rows[2])


@forks
def test_counts_by_input_runs_in_one_call_what_two_calls_run():
    data = toy_ner(1)
    elmo = train_elmo(from_sentences([list(s.words) for s in data.train]), ElmoConfig(**TINY_ELMO, epochs=1),
                      progress=False)
    config = TaggerConfig(epochs=3, evaluations=1, word_dim=16, hidden_dim=16, device="cpu")
    both = learning_curve(data, ["learned", "elmo", "elmo-finetuned"], [30, 60], [1, 2], data.dev, data.test,
                          elmo=elmo, config=config, workers=2, counts_by_input={"elmo-finetuned": [30]})
    apart = (learning_curve(data, ["learned", "elmo"], [30, 60], [1, 2], data.dev, data.test, elmo=elmo,
                            config=config, workers=1)
             + learning_curve(data, ["elmo-finetuned"], [30], [1, 2], data.dev, data.test, elmo=elmo, config=config,
                              workers=1))
    assert [(r["input"], r["labels"], r["seed"]) for r in both] == [
        (name, count, seed) for name, counts in (("learned", [30, 60]), ("elmo", [30, 60]), ("elmo-finetuned", [30]))
        for count in counts for seed in (1, 2)]
    assert same_rows(both, apart)
    with pytest.raises(SettingError, match="counts_by_input names inputs that are not run: glove"):
        learning_curve(data, ["learned"], [30], [1], data.dev, data.test, config=config,
                       counts_by_input={"glove": [30]})


def toy_reviews(count, rng):
    """Reviews of 5 to 11 filler words and one sentiment word (good0-9 or bad0-9) that decides the label."""
    out = []
    for _ in range(count):
        label = int(rng.integers(0, 2))
        words = [f"f{int(i)}" for i in rng.integers(0, 20, int(rng.integers(5, 11)))]
        words.insert(int(rng.integers(0, len(words))), f"{'good' if label else 'bad'}{int(rng.integers(0, 10))}")
        out.append(Review(" ".join(words), tuple(words), label))
    return out


@pytest.fixture(scope="module")
def reviews_and_lm():
    rng = np.random.default_rng(3)
    data = ReviewData(toy_reviews(120, rng), toy_reviews(30, rng), toy_reviews(60, rng))
    lm = train_elmo(from_sentences([list(r.words) for r in data.train]), ElmoConfig(**TINY_ELMO, epochs=1),
                    progress=False)
    return data, lm


@forks
def test_ulmfit_comparisons_features_and_forgetting_give_the_same_rows_on_two_workers(reviews_and_lm):
    data, lm = reviews_and_lm
    config = ClassifierConfig(epochs=3, evaluations=2, device="cpu")
    variants = ["from scratch", "ULMFiT (1+2+3)"]
    rows = {workers: compare(data, variants, [30], [1, 2], {"general": lm, "fine-tuned": lm}, data.dev, data.test,
                             config, workers=workers) for workers in (1, 2)}
    assert [(r["variant"], r["seed"]) for r in rows[2]] == [(v, s) for v in variants for s in (1, 2)]
    assert same_rows(rows[1], rows[2])
    kept = ElmoFeatures(lm)
    frozen = {workers: features(data, kept, [30, 60], [1], data.dev, data.test, config, workers=workers)
              for workers in (1, 2)}
    assert [r["labels"] for r in frozen[2]] == [30, 60] and same_rows(frozen[1], frozen[2])
    assert {tuple(r.words) for r in data.dev} <= set(kept.kept)  # computed here, once, before the runs
    general = [list(r.words) for r in data.test[:20]]
    drift = {workers: forgetting(data, {"general": lm, "fine-tuned": lm}, general, 30, 1, data.dev, data.test, config,
                                 workers=workers) for workers in (1, 2)}
    assert [r["error"] is None for r in drift[2]] == [True, True, False, False] and drift[1] == drift[2]


@forks
def test_stage_two_beside_the_general_lm_classifiers_gives_what_each_gives_alone(reviews_and_lm):
    # notebook 10: the LM fine-tuned on one core while the other trains the classifiers that need only the general LM
    data, lm = reviews_and_lm
    config = ClassifierConfig(epochs=3, evaluations=2, device="cpu")
    texts, lm_config = data.unlabelled_texts("train"), LanguageModelConfig(device="cpu")
    calls = variant_calls(data, ["from scratch", "stages 1+3"], [30], [1, 2], {"general": lm}, data.dev, data.test,
                          config)
    tuned, *rows = run_calls([(fine_tune_lm, (lm, texts, lm_config)), *calls], workers=2)
    alone = fine_tune_lm(lm, texts, lm_config)
    assert same_rows(rows, compare(data, ["from scratch", "stages 1+3"], [30], [1, 2], {"general": lm}, data.dev,
                                   data.test, config, workers=1))
    assert [(r["variant"], r["seed"]) for r in rows] == [(v, s) for v in ("from scratch", "stages 1+3") for s in (1, 2)]
    mine, theirs = tuned.bilm.state_dict(), alone.bilm.state_dict()
    assert mine.keys() == theirs.keys() and all(torch.equal(mine[k], theirs[k]) for k in mine)
    before = lm.bilm.state_dict()
    assert any(not torch.equal(mine[k], before[k]) for k in mine if k.startswith("forward_lm"))  # it was trained
    assert [h["loss"] for h in tuned.history] == [h["loss"] for h in alone.history]


def test_run_calls_gives_each_call_its_result_in_order_and_names_the_function_that_failed():
    results = run_calls([(square_and_pid, (3, 300_000)), (fail_on, (1, 2)), (square_and_pid, (2,))], workers=2)
    assert [results[0][0], results[1], results[2][0]] == [9, 1, 4]
    with pytest.raises(ValueError, match="bad value 5") as caught:
        run_calls([(square_and_pid, (1,)), (fail_on, (5, 5))], workers=2)
    assert any("in job 2 of 2: (fail_on, 5, 5)" in note for note in caught.value.__notes__)


@forks
def test_fine_tuned_transformers_give_the_same_rows_on_two_workers(reviews_and_lm):
    from course.transformer import TransformerConfig, train_transformer
    from course.transformer.classifier import FineTuneConfig, fine_tune_runs

    data, _ = reviews_and_lm
    sentences = from_sentences([list(r.words) for r in data.train])
    models = {objective: train_transformer(sentences, TransformerConfig(
        objective=objective, dim=16, heads=2, layers=1, ff_dim=32, max_positions=16, min_count=1, epochs=1,
        batch_tokens=300, device="cpu", precision="fp32"), progress=False) for objective in ("causal", "masked")}
    config = FineTuneConfig(epochs=2, evaluations=2, device="cpu")
    rows = {workers: fine_tune_runs(models, data, [30], [1, 2], data.dev, data.test, config, workers=workers)
            for workers in (1, 2)}
    assert [(r["variant"], r["seed"]) for r in rows[2]] == [(m, s) for m in models for s in (1, 2)]
    assert same_rows(rows[1], rows[2])
