"""Non-regularity needs a proof: a pumping certificate checked against the reference, far
beyond the enumeration bound and past every integer parameter; otherwise the learner says
"inconclusive" (issue 31, root cause 2)."""

import numpy as np
import pytest

from theorybench.formal.automata import find_certificate, learn_dfa, learn_view
from theorybench.formal.language import LanguageView, language_view


class FuncView(LanguageView):
    """A language given by a vectorized predicate on (batch, length) letter indices."""

    def __init__(self, name, alphabet, pred):
        super().__init__(name, {}, tuple(alphabet))
        self.pred = pred

    def membership(self, words):
        words = np.asarray(words, dtype=np.int64)
        return self.pred(words).astype(np.int64)


def dyck1(depth_bound=None):
    """Dyck-1 over ( ) (letter 0 opens), with an optional depth bound."""
    def pred(w):
        if w.shape[1] == 0:
            return np.zeros(len(w), dtype=bool)
        h = np.cumsum(np.where(w == 0, 1, -1), axis=1)
        ok = (h.min(axis=1) >= 0) & (h[:, -1] == 0)
        if depth_bound is not None:
            ok &= h.max(axis=1) <= depth_bound
        return ok
    return FuncView(f"dyck1_D{depth_bound}", "()", pred)


def test_unbounded_dyck_gets_a_certificate_that_an_independent_oracle_confirms():
    view = dyck1()
    cert, why = find_certificate(view)
    assert cert is not None, why
    assert cert.far[-1] >= 64 and cert.max_length > 256
    rel = {"i = j": lambda i, j: i == j, "i != j": lambda i, j: i != j,
           "i >= j": lambda i, j: i >= j, "i < j": lambda i, j: i < j,
           "i <= j": lambda i, j: i <= j, "i > j": lambda i, j: i > j}[cert.relation]

    def balanced(word):  # a stack-free oracle, independent of the view's numpy code
        d = 0
        for a in word:
            d += 1 if a == 0 else -1
            if d < 0:
                return 0
        return int(d == 0)

    for i, j in [(0, 0), (3, 3), (3, 4), (7, 2), (40, 40), (41, 40)]:
        assert (balanced(cert.word(i, j)) == cert.accept) == rel(i, j)
    d = cert.to_dict()
    assert d["verified_up_to"] == cert.max_length and "Nerode" in d["argument"]


@pytest.mark.parametrize("D", [6, 20, 40])
def test_bounded_depth_is_never_proved_nonregular(D):
    # regular (D + 2 states), and identical to Dyck-1 on every word of depth <= D: the
    # old learner called D = 6 and D = 20 "nonregular" from the residual counts
    res = learn_view(dyck1(D), 12, 14)
    assert res.status in ("regular", "inconclusive")
    assert res.status != "nonregular" and res.certificate is None
    if res.status == "inconclusive":
        assert "no proof of non-regularity" in res.reason
    cert, why = find_certificate(dyck1(D))
    assert cert is None and why


def test_counter_hidden_past_the_grid_is_caught_far_out():
    # a^i b^j with i = j, but only while i <= 100: the grid (i, j <= 10) cannot see it
    def pred(w):
        n = w.shape[1]
        a = (w == 0).sum(axis=1)
        sorted_ = np.all(np.diff(w, axis=1) >= 0, axis=1) if n > 1 else np.ones(len(w), bool)
        return sorted_ & (2 * a == n) & (a <= 100) & (n > 0)
    cert, why = find_certificate(FuncView("anbn_upto_100", "ab", pred))
    assert cert is None and "but not at i = " in why


@pytest.mark.parametrize("task,check_len", [("dyck_bounded:D=2", 6), ("sparse_any:k=3", 4),
                                            ("sparse_any:k=3", 10)])
def test_small_bound_regular_tasks_are_inconclusive_not_nonregular(task, check_len):
    from theorybench import tasks
    family, params = tasks.parse_task(task)
    res = learn_view(language_view(family, params), None, check_len)
    assert res.status == "inconclusive"
    assert res.to_dict()["status"] == "inconclusive" and "certificate" not in res.to_dict()
    # and at a larger bound the same language's automaton is found
    if family == "dyck_bounded":
        assert learn_view(language_view(family, params), None, 12).status == "regular"


def test_a_parameter_can_hide_a_counter():
    # Dyck with depth <= 4096 equals Dyck-1 at every length the family allows (n <= 4096):
    # the check must pass i = 4097, which no word of the family reaches
    view = language_view("dyck_bounded", {"D": 4096}, "invalid")
    cert, why = find_certificate(view)
    assert cert is None and "4097" in why and "parameter" in why


@pytest.mark.parametrize("family,params", [("majority", {}), ("dyck", {})])
def test_nonregular_tasks_are_proved(family, params):
    res = learn_dfa(family, params)
    assert res.status == "nonregular"
    cert = res.certificate
    assert cert["verified_up_to"] >= 1024 and cert["relation"]
    assert res.to_dict()["certificate"] == cert
