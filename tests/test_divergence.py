"""A run that diverges stops with one line and writes nothing: every network trainer (the biLM, the
Transformer, GloVe, the tagger, ULMFiT's LM and classifier) whose weights become NaN exits with status 2,
one line on stderr, and neither ``--out`` nor ``--checkpoint`` on disk; the save guard refuses a state
dict with a single NaN; the perplexity of a huge loss is inf, not an OverflowError."""

import math

import numpy as np
import pytest
import torch
from conftest import NOUNS, VERBS, toy_corpus

from course.cli import main
from course.core.divergence import check_loss, check_weights, not_finite, perplexity, smaller
from course.core.errors import TrainingDivergedError

pytestmark = pytest.mark.filterwarnings("ignore:LSTM with projections is not supported:UserWarning")


def _poison(monkeypatch, after: int = 1) -> list[int]:
    """Adam's (and so AdamW's) steps leave every weight they update NaN from step ``after`` on, as a
    learning rate far too large does; returns the count of steps taken, in a list."""
    step, taken = torch.optim.Adam.step, [0]

    def poisoned(self, *args, **kwargs):
        result = step(self, *args, **kwargs)
        taken[0] += 1
        if taken[0] >= after:
            with torch.no_grad():
                for group in self.param_groups:
                    for parameter in group["params"]:
                        parameter.fill_(math.nan)
        return result

    for optimizer in (torch.optim.Adam, torch.optim.AdamW):  # AdamW too: torch wraps a subclass's step in its own
        monkeypatch.setattr(optimizer, "step", poisoned)
    return taken


def _refused(status: int, capsys, *fragments) -> str:
    """The run failed as a diverged run must: status 2, one line on stderr, no traceback."""
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert status == 2, err
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


def _nothing_written(folder, *names) -> None:
    for name in names:
        assert not (folder / name).exists(), name
    assert not list(folder.glob(".*.part")), list(folder.iterdir())


@pytest.fixture
def toy_text(tmp_path):
    path = tmp_path / "toy.txt"
    path.write_text("".join(" ".join(sentence) + "\n" for sentence in toy_corpus(200)), encoding="utf-8")
    return path


# --------------------------------------------------------------------------------- the helpers


def test_perplexity_of_a_huge_loss_is_inf_and_of_a_nan_loss_nan():
    assert perplexity(2.0) == pytest.approx(math.exp(2.0))
    assert perplexity(709.0) == pytest.approx(math.exp(709.0))
    assert perplexity(710.0) == math.inf and perplexity(1e30) == math.inf and perplexity(math.inf) == math.inf
    assert math.isnan(perplexity(math.nan))
    assert f"{perplexity(1e4):.1f}" == "inf"


def test_a_loss_that_is_not_finite_is_one_line_naming_where_and_what_to_lower():
    assert check_loss(2.5, "in epoch 1", smaller(lr=0.1)) == 2.5
    for loss in (math.nan, math.inf, -math.inf):
        with pytest.raises(TrainingDivergedError) as refused:
            check_loss(loss, "in epoch 3, step 40", smaller(lr=1e30, batch_size=64))
        assert str(refused.value) == (f"training diverged (the loss became {loss}) in epoch 3, step 40: use a smaller "
                                      "--lr (now 1e+30) or --batch-size (now 64)")


def test_the_save_guard_names_the_first_tensor_that_is_not_finite_and_skips_what_is_not_a_float():
    weights = {"embedding.weight": torch.zeros(3, 2), "counts": torch.tensor([1, 2]), "bias": torch.ones(2)}
    assert not_finite({"weights": weights, "best_weights": None}) is None
    weights["bias"][1] = math.inf
    assert not_finite({"weights": weights}) == "weights.bias"
    assert not_finite({"parameters": [torch.ones(2), torch.tensor([0.0, math.nan])]}) == "parameters[1]"
    assert not_finite({"bf16": torch.tensor([math.nan], dtype=torch.bfloat16)}) == "bf16"
    with pytest.raises(TrainingDivergedError, match=r"^out.pt: not written, the weights of the model are not finite "
                                                    r"\(weights.bias holds NaN or infinity\): training diverged; "):
        check_weights("out.pt", {"weights": weights})


def test_a_state_dict_with_one_nan_is_refused_by_every_writer_and_nothing_is_written(tmp_path):
    from course.core.checkpoints import write_checkpoint
    from course.elmo import ElmoConfig, train_elmo
    from course.glove import GloVeConfig, train_glove

    elmo = train_elmo(toy_corpus(60), ElmoConfig(min_count=1, char_dim=4, filters=((1, 4), (2, 4)), projection_dim=8,
                                                 lstm_dim=16, epochs=1, batch_tokens=200, device="cpu"),
                      progress=False)
    assert elmo.save(tmp_path / "fine.pt").is_file()  # finite weights are written
    name, tensor = next((n, t) for n, t in elmo.bilm.state_dict().items() if t.is_floating_point())
    with torch.no_grad():
        tensor.view(-1)[0] = math.nan
    with pytest.raises(TrainingDivergedError, match=f"elmo.pt: not written, .*weights.{name} holds NaN"):
        elmo.save(tmp_path / "elmo.pt")
    with pytest.raises(TrainingDivergedError, match="ckpt: not written"):
        write_checkpoint(tmp_path / "tagger.ckpt", {"format": "x", "weights": {"w": torch.ones(2)},
                                                    "best_weights": {"w": torch.tensor([1.0, math.nan])}})
    glove = train_glove(toy_corpus(60), GloVeConfig(min_count=1, dim=4, epochs=1, threads=1, device="cpu"),
                        progress=False)
    glove.word_vectors[0, 0] = math.nan
    with pytest.raises(TrainingDivergedError, match="vectors.txt: not written, the weights of the vectors"):
        glove.save_vectors(tmp_path / "vectors.txt")
    with pytest.raises(TrainingDivergedError, match=r"glove.ckpt: not written, .*parameters\[0\] holds NaN"):
        glove.save_checkpoint(tmp_path / "glove.ckpt")
    _nothing_written(tmp_path, "elmo.pt", "tagger.ckpt", "vectors.txt", "glove.ckpt")


def test_the_perplexity_of_a_model_far_off_is_inf_not_an_overflow():
    from dataclasses import replace

    from test_elmo import TINY

    from course.elmo import train_elmo
    from course.elmo.perplexity import evaluate_perplexity
    from course.elmo.training import _training_data, split_heldout

    corpus = toy_corpus(100)
    model = train_elmo(corpus, replace(TINY, epochs=1), progress=False)
    with torch.no_grad():
        for parameter in model.bilm.softmax.parameters():
            parameter.mul_(1e6)  # logits of a million: a loss of about that many nats a word, finite
    train, heldout = _training_data(corpus, model, *split_heldout(corpus, model.config))
    measured = evaluate_perplexity(model.bilm, heldout, model.config)
    assert measured["forward"] == math.inf and measured["backward"] == math.inf


# ------------------------------------------------------------------------------- each trainer


@pytest.mark.parametrize("model", ["elmo", "transformer"])
def test_a_language_model_that_diverges_exits_2_in_one_line_and_writes_nothing(
        model, toy_text, tmp_path, capsys, monkeypatch, private_cache):
    _poison(monkeypatch)
    status = main(["train", model, "--corpus", str(toy_text), "--min-count", "1", "--epochs", "1", "--batch-tokens",
                   "120", "--device", "cpu", "--quiet", "--out", str(tmp_path / "model.pt"),
                   "--checkpoint", str(tmp_path / "model.ckpt")])
    _refused(status, capsys, "training diverged (the loss became nan) in epoch 1, step ", "use a smaller --lr (now ")
    _nothing_written(tmp_path, "model.pt", "model.ckpt")


@pytest.mark.parametrize("model", ["elmo", "transformer"])
def test_weights_that_diverge_at_the_last_step_are_not_saved(model, toy_text, tmp_path, capsys, monkeypatch,
                                                             private_cache):
    """The last step leaves the weights NaN after the last loss was read out: the save guard refuses them."""
    from course.lm import run

    monkeypatch.setattr(run, "LOG_EVERY", 10**6)  # the loss is read out only at the epoch's end
    read_out = run.Run.log

    def poisoned_after_the_read_out(self, *args, **kwargs):
        read_out(self, *args, **kwargs)
        with torch.no_grad():
            for parameter in getattr(self.model, self.model.NETWORK).parameters():
                parameter.fill_(math.nan)

    monkeypatch.setattr(run.Run, "log", poisoned_after_the_read_out)
    status = main(["train", model, "--corpus", str(toy_text), "--min-count", "1", "--epochs", "1", "--batch-tokens",
                   "120", "--device", "cpu", "--quiet", "--out", str(tmp_path / "model.pt"),
                   "--checkpoint", str(tmp_path / "model.ckpt")])
    _refused(status, capsys, "model.ckpt: not written, the weights of the checkpoint are not finite", "training "
             "diverged; use a smaller --lr (now ")
    _nothing_written(tmp_path, "model.pt", "model.ckpt")


def test_glove_that_diverges_exits_2_in_one_line_and_writes_nothing(toy_text, tmp_path, capsys, monkeypatch,
                                                                   private_cache):
    from course.glove.trainer import FastTrainer

    step = FastTrainer.step

    def poisoned(self, batch):
        loss = step(self, batch)
        self.model.word_vectors.fill_(math.nan)  # after the step: its loss was finite, the next ones are not
        return loss

    monkeypatch.setattr(FastTrainer, "step", poisoned)
    common = ["train", "glove", "--corpus", str(toy_text), "--min-count", "1", "--dim", "4", "--threads", "1",
              "--device", "cpu", "--quiet", "--out", str(tmp_path / "vectors.txt")]
    _refused(main([*common, "--epochs", "3", "--checkpoint", str(tmp_path / "glove.ckpt")]), capsys,
             "glove.ckpt: not written, the weights of the checkpoint are not finite (parameters[0] holds NaN")
    _refused(main([*common, "--epochs", "3"]), capsys, "training diverged (the loss became nan) in epoch 2: use a "
             "smaller --lr (now 0.05) or --batch-size")
    _refused(main([*common, "--epochs", "1"]), capsys, "vectors.txt: not written, the weights of the vectors are "
             "not finite")
    _nothing_written(tmp_path, "vectors.txt", "glove.ckpt")


def _people_daily(folder):
    path = folder / "pd.txt"
    rng = np.random.default_rng(0)
    path.write_text("".join(f"{rng.choice(['张/nr 三/nr', '李/nr 四/nr'])} 在/p {rng.choice(['北京/ns', '上海/ns'])} "
                            "工作/v 。/w\n" for _ in range(120)), encoding="utf-8")
    return path


@pytest.mark.parametrize("after", [1, 2])  # 1: the loss of step 2 is NaN; 2: the weights after the last step
def test_a_tagger_that_diverges_exits_2_in_one_line_and_writes_nothing(after, tmp_path, capsys, monkeypatch):
    _poison(monkeypatch, after)
    status = main(["train", "tagger", "--data", str(_people_daily(tmp_path)), "--labels", "40", "--epochs", "2",
                   "--batch-size", "20", "--quiet", "--device", "cpu", "--out", str(tmp_path / "report.json"),
                   "--checkpoint", str(tmp_path / "tagger.ckpt")])
    line = _refused(status, capsys, "use a smaller --lr (now ")
    assert line.startswith("error: training diverged (the loss became nan) in epoch 1" if after == 1 else
                           "error: training diverged: the weights of the model after epoch 1 are not finite"), line
    _nothing_written(tmp_path, "report.json", "tagger.ckpt")


@pytest.fixture(scope="module")
def review_lm(tmp_path_factory):
    """A tiny biLM file and review files in its words."""
    from test_ulmfit import TINY

    from course.elmo import ElmoConfig, train_elmo

    folder = tmp_path_factory.mktemp("reviews")
    rng = np.random.default_rng(0)
    for name, verdict in (("positive", "好"), ("negative", "差")):
        (folder / f"{name}.txt").write_text("".join(f"{rng.choice(NOUNS)} {rng.choice(VERBS)} {verdict} {i}\n"
                                                    for i in range(60)), encoding="utf-8")
    train_elmo(toy_corpus(60), ElmoConfig(**TINY, epochs=1), progress=False).save(folder / "lm.pt")
    return folder


@pytest.mark.parametrize("stage", ["classifier", "LM fine-tuning"])
def test_a_classifier_that_diverges_exits_2_in_one_line_and_writes_nothing(stage, review_lm, tmp_path, capsys,
                                                                          monkeypatch):
    _poison(monkeypatch)
    lm_flags = ["--lm-epochs", "1", "--lm-out", str(tmp_path / "lm.pt")] if stage != "classifier" else []
    status = main(["train", "classifier", "--lm", str(review_lm / "lm.pt"), "--scratch", "--positive",
                   str(review_lm / "positive.txt"), "--negative", str(review_lm / "negative.txt"), "--labels", "40",
                   "--epochs", "2", "--batch-size", "8", "--dev-reviews", "10", "--quiet", "--device", "cpu",
                   "--out", str(tmp_path / "report.json"), "--checkpoint", str(tmp_path / "classifier.ckpt"),
                   *lm_flags])
    # the LM's fine-tuning takes one step (its texts fit in one batch), whose weights are refused at its end
    _refused(status, capsys, "training diverged: the weights of the fine-tuned LM are not finite" if lm_flags else
             "training diverged (the loss became nan) in epoch 1: use a smaller --lr")
    _nothing_written(tmp_path, "report.json", "classifier.ckpt", "lm.pt")
