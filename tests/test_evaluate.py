import re

import numpy as np
import pytest
from gensim.test.utils import datapath

from course.analysis import evaluate
from course.analysis.vectors import keyed_vectors, load_vectors, save_vectors
from course.core.errors import EvaluationFileError, SettingError, VectorsFileError, WordNotInVocabularyError


@pytest.mark.parametrize("restrict_vocab", [300_000, 3_000])
def test_3cosadd_equals_gensim_per_section(wiki_vectors, restrict_vocab):
    score, gensim_sections = wiki_vectors.evaluate_word_analogies(datapath("questions-words.txt"),
                                                                  restrict_vocab=restrict_vocab)
    ours = evaluate.evaluate_analogies(wiki_vectors, restrict_vocab=restrict_vocab)
    assert len(ours.sections) == len(gensim_sections) - 1
    for theirs, mine in zip(gensim_sections[:-1], ours.sections, strict=True):
        assert theirs["section"] == mine.name
        assert len(theirs["correct"]) == mine.correct
        assert len(theirs["correct"]) + len(theirs["incorrect"]) == mine.answered
    assert ours.total.accuracy == score
    assert ours.total.answered + ours.total.skipped == 19544
    assert ours.semantic.answered + ours.syntactic.answered == ours.total.answered


def test_3cosadd_equals_gensim_with_case_variants():
    """Two spellings of a word: gensim ignores both as answers; so must we."""
    rng = np.random.default_rng(0)
    words = ["king", "man", "woman", "queen", "King", "Queen", "WOMAN", "prince", "girl", "boy"]
    vectors = rng.normal(size=(len(words), 8)).astype(np.float32)
    vectors[4] = vectors[0] * 1.01 + 0.01  # "King" is close to "king": a tempting non-answer
    vectors[3] = vectors[0] - vectors[1] + vectors[2] + 0.3 * rng.normal(size=8)
    kv = keyed_vectors(words, vectors)
    path = datapath("questions-words.txt")
    _, gensim_sections = kv.evaluate_word_analogies(path)
    ours = evaluate.evaluate_analogies(kv, path)
    assert [len(s["correct"]) for s in gensim_sections[:-1]] == [s.correct for s in ours.sections]
    assert ours.total.correct >= 1


def test_3cosmul_equals_gensims_most_similar_cosmul(wiki_vectors):
    questions = [q for _, section in evaluate.read_analogies() for q in section]
    ours = evaluate.evaluate_analogies(wiki_vectors, method="3cosmul")
    checked = 0
    for (a, b, c, _), guess in list(zip(questions, ours.predictions, strict=True))[::10]:
        if guess is None:  # skipped: a word is unknown
            continue
        query = dict(positive=[b.lower(), c.lower()], negative=[a.lower()])
        best = wiki_vectors.most_similar_cosmul(**query, topn=1)
        if guess != best[0][0]:  # only a tie within float32 rounding may pick another word
            scores = wiki_vectors.most_similar_cosmul(**query, topn=None)
            assert abs(scores[wiki_vectors.key_to_index[guess]] - best[0][1]) < 1e-5, (a, b, c, guess, best)
        checked += 1
    assert checked > 300


def test_similarity_equals_gensim_exactly(wiki_vectors):
    for name in ("wordsim353", "simlex999"):
        pearson, spearman, oov = wiki_vectors.evaluate_word_pairs(str(evaluate.benchmark_path(name)))
        ours = evaluate.evaluate_similarity(wiki_vectors, name)
        assert ours.spearman == spearman.statistic
        assert ours.pearson == pearson.statistic
        assert ours.oov_ratio == oov


def test_planted_vectors_score_perfectly(tmp_path):
    """Vectors built so that every analogy and similarity holds: the scores must say so."""
    rng = np.random.default_rng(1)
    base = {w: rng.normal(size=16) for w in ["paris", "rome", "tokyo", "berlin"]}
    offset = rng.normal(size=16)
    words, vectors = [], []
    for city, vector in base.items():
        words += [city, city + "land"]
        vectors += [vector, vector + offset]
    kv = keyed_vectors(words, np.array(vectors))
    analogies = tmp_path / "analogies.txt"
    analogies.write_text(": capitals\nparis parisland rome romeland\ntokyo tokyoland berlin berlinland\n"
                         ": gram-plural\nparis parisland unknown unknownland\n")
    result = evaluate.evaluate_analogies(kv, analogies)
    assert (result.total.correct, result.total.answered, result.total.skipped) == (2, 2, 1)
    assert result.semantic.accuracy == 1.0 and result.syntactic.answered == 0
    pairs = tmp_path / "pairs.tsv"
    sims = [(a, b, float(kv.similarity(a, b))) for a in words for b in words if a < b]
    pairs.write_text("# comment\n" + "".join(f"{a}\t{b}\t{10 * s:.6f}\n" for a, b, s in sims))
    assert evaluate.evaluate_similarity(kv, pairs).spearman == pytest.approx(1.0)


def test_malformed_evaluation_files(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text(": section\na b c d\na b c\n")
    with pytest.raises(EvaluationFileError, match=r"bad.txt:3: expected four words"):
        evaluate.read_analogies(bad)
    bad.write_text("a b c d\n")
    with pytest.raises(EvaluationFileError, match=r"bad.txt:1: a question before"):
        evaluate.read_analogies(bad)
    bad.write_text("# header\ncat\tdog\tvery\n")
    with pytest.raises(EvaluationFileError, match=r"bad.txt:2: expected 'word1<TAB>word2<TAB>score'"):
        evaluate.read_word_pairs(bad)
    with pytest.raises(EvaluationFileError, match="no such evaluation file"):
        evaluate.read_word_pairs(tmp_path / "missing.tsv")


def test_neighbours_and_similarity_matrix(wiki_vectors):
    near = evaluate.neighbours(wiki_vectors, "france", topn=5)
    assert len(near) == 5 and all(-1 <= s <= 1 for _, s in near) and "france" not in dict(near)
    matrix = evaluate.similarity_matrix(wiki_vectors, ["france", "spain", "music"])
    np.testing.assert_allclose(np.diag(matrix), 1.0, rtol=1e-5)
    np.testing.assert_allclose(matrix, matrix.T)
    with pytest.raises(WordNotInVocabularyError, match="'qwertyuiop' is not in the vectors"):
        evaluate.neighbours(wiki_vectors, "qwertyuiop")


def test_vectors_files_text_binary_and_broken(tmp_path, wiki_vectors):
    for binary in (False, True):
        path = save_vectors(wiki_vectors, tmp_path / f"v{int(binary)}", binary=binary)
        loaded = load_vectors(path)
        assert loaded.index_to_key == wiki_vectors.index_to_key
        np.testing.assert_allclose(loaded.vectors, wiki_vectors.vectors, rtol=1e-5, atol=1e-6)
    text = (tmp_path / "v0").read_bytes()
    (tmp_path / "cut").write_bytes(text[: len(text) // 2])
    with pytest.raises(VectorsFileError, match=r"cut, line [\d,]+: truncated or malformed word2vec text file: "
                                               r"expected a word and 40 numbers, found \d+"):
        load_vectors(tmp_path / "cut")
    (tmp_path / "notes").write_text("hello there\n")
    with pytest.raises(VectorsFileError, match="not a vectors file the course reads: its first line is neither"):
        load_vectors(tmp_path / "notes")
    with pytest.raises(VectorsFileError, match="no such vectors file"):
        load_vectors(tmp_path / "nothing")


def test_evaluate_all_and_report(wiki_vectors):
    results = evaluate.evaluate_all(wiki_vectors)
    assert set(results["analogies"]) == {"3cosadd", "3cosmul"}
    assert set(results["similarity"]) == {"wordsim353", "simlex999"}
    report = evaluate.format_report(results)
    assert "semantic" in report and "wordsim353" in report
    row = evaluate.summary_row(results)
    assert row["WordSim-353"] == results["similarity"]["wordsim353"]["spearman"]


def _toy_questions():
    return {"capital-common-countries": [("Athens", "Greece", "Paris", "France"),
                                         ("Paris", "France", "Rome", "Italy"),
                                         ("Rome", "Italy", "Athens", "Greece")],
            "family": [("man", "woman", "king", "queen"), ("boy", "girl", "man", "woman")],
            "gram8-plural": [("cat", "cats", "dog", "dogs")]}


def test_supported_analogies_keep_the_questions_whose_four_words_pass():
    counts = {"athens": 50, "greece": 80, "paris": 300, "france": 500, "rome": 49, "italy": 120,
              "man": 132, "woman": 50, "king": 88, "queen": 17, "boy": 60, "girl": 70,
              "cat": 51, "cats": 50, "dog": 90}  # "dogs" never seen; "rome" one short of 50
    supported = evaluate.supported_analogies(counts, _toy_questions(), min_count=50)
    assert supported.questions == {"capital-common-countries": [("Athens", "Greece", "Paris", "France")],
                                   "family": [("boy", "girl", "man", "woman")],
                                   "gram8-plural": []}
    assert supported.asked == {"capital-common-countries": 3, "family": 2, "gram8-plural": 1}
    assert supported.kept == {"capital-common-countries": 1, "family": 1, "gram8-plural": 0}
    assert (supported.total_asked, supported.total_kept, supported.min_count) == (6, 2, 50)
    # One more sighting of "rome" brings back both of its questions; one fewer of "athens" drops its two.
    counts.update(rome=50, athens=49)
    kept = evaluate.supported_analogies(counts, _toy_questions(), min_count=50).questions
    assert kept["capital-common-countries"] == [("Paris", "France", "Rome", "Italy")]
    # A lower bar keeps every question whose words are all seen; "dogs" (count 0) never passes.
    assert evaluate.supported_analogies(counts, _toy_questions(), min_count=17).kept == {
        "capital-common-countries": 3, "family": 2, "gram8-plural": 0}


def test_supported_analogies_from_a_vocabulary_a_corpus_and_case(wiki):
    from course.text.vocab import Vocabulary

    questions = _toy_questions()
    by_corpus = evaluate.supported_analogies(wiki, questions, min_count=20)
    by_vocab = evaluate.supported_analogies(Vocabulary.from_corpus(wiki, min_count=5), questions, min_count=20)
    counts = dict(zip(wiki.types, wiki.counts().tolist(), strict=True))
    by_mapping = evaluate.supported_analogies(counts, questions, min_count=20)
    assert by_corpus == by_vocab == by_mapping
    for section, kept in by_mapping.questions.items():
        assert kept == [q for q in questions[section] if all(counts.get(w.lower(), 0) >= 20 for w in q)]
    # Case: a word's count is that of its most frequent spelling, unless told to compare exactly.
    counts = {"Paris": 10, "paris": 60, "PARIS": 5, "france": 60, "athens": 60, "greece": 60}
    toy = {"capitals": [("Athens", "Greece", "Paris", "France")]}
    assert evaluate.supported_analogies(counts, toy, min_count=60).kept == {"capitals": 1}
    assert evaluate.supported_analogies(counts, toy, min_count=61).kept == {"capitals": 0}
    assert evaluate.supported_analogies(counts, toy, min_count=1, case_insensitive=False).kept == {"capitals": 0}
    with pytest.raises(SettingError, match="min_count must be at least 1"):
        evaluate.supported_analogies(counts, toy, min_count=0)


def test_supported_questions_are_scored_like_a_file(tmp_path, wiki_vectors, wiki):
    supported = evaluate.supported_analogies(wiki, min_count=50)
    assert supported.total_asked == 19544 and 0 < supported.total_kept < supported.total_asked
    assert list(supported.questions) == [name for name, _ in evaluate.read_analogies()]
    path = tmp_path / "supported.txt"
    path.write_text("".join(f": {name}\n" + "".join(" ".join(q) + "\n" for q in questions)
                            for name, questions in supported.questions.items()))
    for method in evaluate.METHODS:
        from_mapping = evaluate.evaluate_analogies(wiki_vectors, supported.questions, method=method)
        from_file = evaluate.evaluate_analogies(wiki_vectors, path, method=method)
        assert from_mapping.to_dict() == from_file.to_dict()
        assert from_mapping.predictions == from_file.predictions
        assert from_mapping.total.answered == supported.total_kept  # every kept word is in the vocabulary
    results = evaluate.evaluate_all(wiki_vectors, analogies=supported.questions, methods=("3cosadd",))
    assert results["analogies"]["3cosadd"]["total"]["answered"] == supported.total_kept


@pytest.mark.parametrize("name,content,message", [
    ("duplicate.txt", b"3 2\nking 0.1 0.2\nqueen 0.2 0.1\nking 0.3 0.4\n",
     "duplicate.txt, line 4: the word 'king' appears again (first on line 2)"),
    ("latin1.txt", "2 2\ncafé 0.1 0.2\nthé 0.2 0.1\n".encode("latin-1"),
     "latin1.txt, line 2: the word b'caf\\xe9' is not UTF-8"),
    ("many.txt", b"99999999999 2\nking 0.1 0.2\n", "declares 99,999,999,999 words of 2 dimensions"),
    ("wide.txt", b"1 99999999999\nking 0.1 0.2\n", "declares 1 word of 99,999,999,999 dimensions"),
    ("nan.txt", b"2 2\nking 0.1 0.2\nqueen nan 0.1\n", "nan.txt, line 3: the vector of 'queen' holds NaN or infinity"),
    ("inf.txt", b"2 2\nking inf 0.2\nqueen 0.2 0.1\n", "inf.txt, line 2: the vector of 'king' holds NaN or infinity"),
    ("huge.txt", b"1 2\nking 1e39 0.2\n", "huge.txt, line 2: the vector of 'king' holds NaN or infinity"),
    ("fewer.txt", b"1 2\nking 0.1 0.2\nqueen 0.2 0.1\n", "fewer.txt, line 3: its first line declares 1 word, but"),
    ("letters.txt", b"1 2\nking 0.1 abc\n",
     "letters.txt, line 2: truncated or malformed word2vec text file: b'abc' is not a number"),
])
def test_vectors_files_that_are_wrong_are_refused_in_one_line(tmp_path, name, content, message):
    (tmp_path / name).write_bytes(content)
    with pytest.raises(VectorsFileError) as caught:
        load_vectors(tmp_path / name)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_binary_vectors_files_that_are_wrong_are_refused(tmp_path):
    def binary(count, entries, tail=b""):
        return f"{count} 2\n".encode() + b"".join(word.encode() + b" " + np.asarray(vector, dtype="<f4").tobytes()
                                                 + b"\n" for word, vector in entries) + tail

    cases = {
        "dup.bin": (binary(2, [("king", [1, 2]), ("king", [3, 4])]), "dup.bin: the word 'king' appears more than once"),
        "nan.bin": (binary(2, [("king", [1, 2]), ("queen", [np.nan, 4])]), "word 2: the vector of 'queen' holds NaN"),
        "more.bin": (binary(1, [("king", [1, 2]), ("queen", [3, 4])]), "declares 1 word, and more bytes follow"),
        "cut.bin": (binary(3, [("king", [1, 2]), ("queen", [3, 4])], b"x" * 8),
                    "truncated or malformed word2vec binary file: its first line declares 3 words of 2 dimensions, "
                    "and the file ends before the last of them"),
    }
    for name, (content, message) in cases.items():
        (tmp_path / name).write_bytes(content)
        with pytest.raises(VectorsFileError, match=re.escape(message)):
            load_vectors(tmp_path / name)
    (tmp_path / "good.bin").write_bytes(binary(2, [("king", [1, 2]), ("queen", [3, 4])]))
    assert load_vectors(tmp_path / "good.bin").index_to_key == ["king", "queen"]
