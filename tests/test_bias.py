"""course.analysis.bias: the gender direction, projections, WEAT against a brute-force count, and neutralising."""

import itertools

import numpy as np
import pytest

from course.analysis.bias import (
    associations,
    cross_validated_accuracy,
    gender_direction,
    neutralise,
    pair_components,
    project,
    weat,
    weat_vectors,
)
from course.analysis.vectors import keyed_vectors
from course.core.errors import SettingError, WordNotInVocabularyError


def brute_force_weat(X, Y, A, B):
    """Effect size and one-sided p-value written out from Caliskan et al.'s definitions, one split at a time."""
    def s(w):
        cos = lambda u, v: u @ v / np.linalg.norm(u) / np.linalg.norm(v)  # noqa: E731
        return np.mean([cos(w, a) for a in A]) - np.mean([cos(w, b) for b in B])

    values = [s(w) for w in (*X, *Y)]
    n_x = len(X)
    effect_size = (np.mean(values[:n_x]) - np.mean(values[n_x:])) / np.std(values, ddof=1)
    observed = sum(values[:n_x]) - sum(values[n_x:])
    statistics = []
    for chosen in itertools.combinations(range(len(values)), n_x):
        inside = [values[i] for i in chosen]
        outside = [values[i] for i in range(len(values)) if i not in chosen]
        statistics.append(sum(inside) - sum(outside))
    p_value = np.mean(np.array(statistics) >= observed - 1e-12)
    return effect_size, p_value, len(statistics), observed


@pytest.mark.parametrize(("n_x", "n_y", "n_a", "n_b"), [(2, 2, 1, 1), (4, 4, 3, 5), (6, 6, 2, 2), (7, 7, 4, 4)])
def test_weat_matches_a_brute_force_count_on_equal_sets(n_x, n_y, n_a, n_b):
    rng = np.random.default_rng(n_x + 10 * n_a)
    X, Y, A, B = (rng.normal(size=(n, 8)) * rng.lognormal(0, 1, (n, 1)) for n in (n_x, n_y, n_a, n_b))
    result = weat_vectors(X, Y, A, B)
    effect_size, p_value, splits, statistic = brute_force_weat(X, Y, A, B)
    assert result.exact and result.partitions == splits
    assert result.effect_size == pytest.approx(effect_size, rel=1e-10)
    assert result.p_value == pytest.approx(p_value, abs=1e-12)
    assert result.statistic == pytest.approx(statistic, rel=1e-10)


def test_unequal_target_sets_rank_splits_by_the_difference_of_means():
    rng = np.random.default_rng(3)
    X, Y, A, B = (rng.normal(size=(n, 5)) for n in (3, 6, 2, 4))
    s = np.concatenate([associations(X, A, B), associations(Y, A, B)])
    differences = [s[list(c)].mean() - np.delete(s, list(c)).mean() for c in itertools.combinations(range(9), 3)]
    observed = s[:3].mean() - s[3:].mean()
    result = weat_vectors(X, Y, A, B)
    assert result.partitions == 84
    assert result.p_value == pytest.approx(np.mean(np.array(differences) >= observed - 1e-12), abs=1e-12)


def test_swapping_the_attributes_turns_the_effect_round_and_the_p_value_to_the_other_tail():
    rng = np.random.default_rng(4)
    X, Y, A, B = (rng.normal(size=(n, 6)) for n in (5, 5, 3, 3))
    forward, backward = weat_vectors(X, Y, A, B), weat_vectors(X, Y, B, A)
    assert backward.effect_size == pytest.approx(-forward.effect_size)
    assert forward.p_value + backward.p_value == pytest.approx(1 + 1 / forward.partitions)  # the observed split twice


def test_a_planted_association_is_found_and_random_sets_give_uniform_p_values():
    rng = np.random.default_rng(5)
    A, B = rng.normal(size=(6, 20)), rng.normal(size=(6, 20))
    X = rng.normal(size=(6, 20)) + 0.8 * A.mean(axis=0)
    Y = rng.normal(size=(6, 20)) + 0.8 * B.mean(axis=0)
    planted = weat_vectors(X, Y, A, B)
    assert planted.p_value < 0.01 and planted.effect_size > 1
    p_values = np.array([weat_vectors(*(rng.normal(size=(n, 20)) for n in (5, 5, 4, 4))).p_value for _ in range(300)])
    assert 0.01 <= np.mean(p_values < 0.05) <= 0.10       # about 5%; 300 draws put 1% and 10% beyond 2.5 std
    assert 0.40 <= np.median(p_values) <= 0.60


def test_a_monte_carlo_p_value_is_seeded_counts_its_draws_and_agrees_with_the_exact_one():
    rng = np.random.default_rng(6)
    X, Y, A, B = (rng.normal(size=(n, 10)) for n in (8, 8, 4, 4))
    X = X + 0.2 * A.mean(axis=0)
    exact = weat_vectors(X, Y, A, B)
    sampled = weat_vectors(X, Y, A, B, permutations=4000, seed=7)
    assert exact.exact and exact.partitions == 12870
    assert not sampled.exact and sampled.partitions == 4000
    assert sampled.p_value >= 1 / 4001
    assert abs(sampled.p_value - exact.p_value) < 4 * np.sqrt(exact.p_value * (1 - exact.p_value) / 4000) + 1e-3
    assert weat_vectors(X, Y, A, B, permutations=4000, seed=7).p_value == sampled.p_value
    assert sampled.effect_size == exact.effect_size


def toy_vectors(seed=0, dim=30, pairs=8, others=40, strength=1.5):
    """Pairs (m_i, f_i) that differ along a planted unit direction g, plus unrelated words."""
    rng = np.random.default_rng(seed)
    g = rng.normal(size=dim)
    g /= np.linalg.norm(g)
    words, rows = [], []
    for i in range(pairs):
        base = rng.normal(size=dim) * 2
        words += [f"m{i}", f"f{i}"]
        rows += [base - strength * g + rng.normal(0, 0.1, dim), base + strength * g + rng.normal(0, 0.1, dim)]
    for i in range(others):
        words.append(f"w{i}")
        rows.append(rng.normal(size=dim) * 2)
    return keyed_vectors(words, np.array(rows)), g, [(f"m{i}", f"f{i}") for i in range(pairs)]


@pytest.mark.parametrize("method", ["pca", "mean"])
def test_the_direction_recovers_a_planted_one_and_points_towards_the_second_words(method):
    kv, g, pairs = toy_vectors()
    direction = gender_direction(kv, pairs, method=method)
    assert np.linalg.norm(direction) == pytest.approx(1)
    assert direction @ g > 0.9
    assert np.all(project(kv, [b for _, b in pairs], direction) > project(kv, [a for a, _ in pairs], direction))
    reversed_direction = gender_direction(kv, [(b, a) for a, b in pairs], method=method)
    assert reversed_direction @ direction == pytest.approx(-1)


def test_one_planted_direction_explains_most_of_the_variance_and_random_pairs_do_not():
    kv, _, pairs = toy_vectors()
    components, ratios = pair_components(kv, pairs)
    assert components.shape == (len(ratios), kv.vector_size) and ratios[0] > 0.8
    assert np.all(np.diff(ratios) <= 1e-12)
    random_pairs = [(f"w{i}", f"w{i + 1}") for i in range(0, 16, 2)]
    _, random_ratios = pair_components(kv, random_pairs)
    assert random_ratios[0] < 0.5
    assert random_ratios[0] >= 1 / len(random_pairs) - 1e-12   # the floor: 2n rows span at most n dimensions


def test_project_gives_cosines_with_the_direction():
    kv, g, _ = toy_vectors()
    words = ["w0", "w1", "m3"]
    assert project(kv, words, 3 * g) == pytest.approx(kv.cosine_similarities(g, kv[words]), abs=1e-6)


def test_neutralise_zeroes_the_projection_and_keeps_the_orthogonal_part():
    rng = np.random.default_rng(8)
    vectors, direction = rng.normal(size=(50, 12)), rng.normal(size=12) * 4
    g = direction / np.linalg.norm(direction)
    neutral = neutralise(vectors, direction)
    assert np.abs(neutral @ g).max() < 1e-12
    orthogonal = vectors - np.outer(vectors @ g, g)
    assert neutral == pytest.approx(orthogonal, abs=1e-12)
    assert neutralise(neutral, g) == pytest.approx(neutral, abs=1e-12)
    already = orthogonal[0]
    assert neutralise(already, g) == pytest.approx(already, abs=1e-12)   # one vector (d,) works too
    other = rng.normal(size=12)
    other -= (other @ g) * g                                           # a direction orthogonal to g
    assert neutral @ other == pytest.approx(vectors @ other, abs=1e-10)


def test_weat_on_keyed_vectors_refuses_shared_and_missing_words():
    kv, _, pairs = toy_vectors()
    words = [f"w{i}" for i in range(8)]
    result = weat(kv, words[:2], words[2:4], ["m0", "m1"], ["f0", "f1"])
    assert 0 < result.p_value <= 1 and result.partitions == 6
    with pytest.raises(SettingError, match="'w0' is in both X and A"):
        weat(kv, words[:2], words[2:4], ["w0"], ["f0"])
    with pytest.raises(WordNotInVocabularyError, match="'nowhere'"):
        weat(kv, words[:2], ["nowhere", "w3"], ["m0"], ["f0"])
    with pytest.raises(SettingError, match="at least three target words"):
        weat_vectors(np.ones((1, 3)), np.ones((1, 3)), np.ones((1, 3)), np.ones((1, 3)))


def test_gender_direction_refuses_an_unknown_method():
    kv, _, pairs = toy_vectors()
    with pytest.raises(SettingError, match="unknown method 'median'"):
        gender_direction(kv, pairs, method="median")


@pytest.mark.parametrize("classifier", ["knn", "logistic"])
def test_cross_validated_accuracy_finds_structure_and_not_noise(classifier):
    rng = np.random.default_rng(9)
    labels = np.repeat([0, 1], 60)
    centres = rng.normal(size=(2, 16)) * 2
    clustered = centres[labels] + rng.normal(size=(120, 16))
    assert cross_validated_accuracy(clustered, labels, classifier=classifier).mean() > 0.9
    noise = rng.normal(size=(120, 16))
    scores = cross_validated_accuracy(noise, labels, classifier=classifier, folds=5, seed=1)
    assert scores.shape == (5,) and scores.mean() < 0.7
