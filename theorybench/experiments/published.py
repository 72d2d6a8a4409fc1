"""Published length-generalization tables, as data with their sources.

Each :class:`PublishedRow` is one row of a paper's table: a task, a positional encoding,
the published accuracy per test bin (fractions; None where the sources read give no
figure) and where the figure was read. ``theorybench reproduce PAPER`` trains the same
rows under the paper's protocol (:mod:`.reproduce`) and sets its own figures beside
these.

Sources (read in the authors' public repositories; the commit is named per paper):

* ``huang2025`` - Huang et al., "A formal framework for understanding length
  generalization in transformers" (ICLR 2025). Figures of the paper's main plot, from the
  authors' plotting data ``formal_lang_suite/visualise/data_local.py`` (dictionaries
  ``ape`` and ``nope``, whose bins are named "Bin 0", "Bin 1", "Bin 2" only) in
  lacoco-lab/length_generalization at commit b39b743; APE there is learned absolute
  positions with a random offset, our ``learned_offsets``. The protocol's bins [0, 50],
  [51, 100], [101, 150] are those of the algorithmic tasks; each formal language's own
  lengths are in the datasets the authors committed with the suite
  (``formal_lang_suite/generated_ds/<LANG>/``, which their training script reads when
  present, so the data its runs saw): see :data:`AUTHORS_DATA` and
  :func:`authors_windows`.
* ``bhattamishra2020`` - Bhattamishra, Ahuja & Goyal, "On the ability and limitations of
  transformers to recognize formal languages" (EMNLP 2020). The sources read (the authors'
  repository satwik77/Transformer-Formal-Languages, its README) state the findings in words,
  not the per-bin table: transformers "do well" on counter languages such as Dyck-1 and
  have "limited performance on languages that involve modeling periodicity, modular
  counting". Rows carry that reading and no figure; a figure is not quoted from memory.

Tasks are written as the toolkit names them: a built-in family reference (``dyck:k=1``)
or ``@name``, a language task file shipped in ``experiments/languages/name.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ConfigError

LANGUAGES_DIR = Path(__file__).with_name("languages")
#: The algorithmic tasks of the tables, as task files with an answer after a separator.
ALGORITHMIC_DIR = Path(__file__).with_name("algorithmic")
HUANG_SOURCE = ("lacoco-lab/length_generalization@b39b743, "
                "formal_lang_suite/visualise/data_local.py")
BHATTAMISHRA_SOURCE = ("satwik77/Transformer-Formal-Languages README (findings in words; "
                       "per-bin figures not in the sources read)")

#: How a row is trained: a language by its next-symbol sets, an algorithmic task by its
#: answer (for the built-ins here: the label read at the last input position).
LANGUAGE, ALGORITHMIC = "language", "algorithmic"


@dataclass(frozen=True)
class PublishedRow:
    paper: str
    name: str                       # the paper's name for the task
    task: str                       # the toolkit's task ("dyck:k=1", "@tomita3", "parity")
    kind: str                       # LANGUAGE or ALGORITHMIC
    encoding: str                   # the toolkit's encoding name for the paper's
    bins: tuple[float, ...] | None  # published accuracy per test bin (fractions)
    reading: str | None = None      # the paper's own words where there is no figure
    source: str = ""
    #: why the toolkit cannot train the row (None: it can)
    unavailable: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    #: how members are drawn when the authors' files show their generator (:mod:`.samplers`);
    #: empty: the default, each length uniform, then each member of it
    sampler: str = ""
    #: how the authors' own runs of the row were trained, as their files show it
    budget: str = ""

    @property
    def row_id(self) -> str:
        return f"{self.name} / {self.encoding}"


_NO_BOOL5 = ("no definition of Boolean-5 is in the authors' files: Huang et al.'s repository "
             "(commit b39b743) holds only its accuracies (formal_lang_suite/visualise/"
             "data_local.py), and the generator it follows (Bhattamishra et al., "
             "src/utils/boolean_expr_generator.py at 48eea2e) admits operator arities up to "
             "3 only")
# name -> (task, kind, unavailable reason, {encoding: published bins in percent})
_HUANG = {
    "binary_majority": ("majority", ALGORITHMIC, None,
                        {"learned_offsets": (100.0, 100.0, 100.0), "nope": (100.0, 100.0, 100.0)}),
    "parity": ("parity", ALGORITHMIC, None,
               {"learned_offsets": (100.0, 83.0, 62.1), "nope": (97.5, 74.5, 63.3)}),
    "majority": ("@majority", ALGORITHMIC, None,
                 {"learned_offsets": (100.0, 99.6, 97.8), "nope": (100.0, 99.9, 98.5)}),
    "binary_majority_interleave": ("@majority_interleave", ALGORITHMIC, None,
                                   {"learned_offsets": (100.0, 96.8, 84.7),
                                    "nope": (96.2, 68.8, 39.5)}),
    "sort": ("@sort", ALGORITHMIC, None,
             {"learned_offsets": (100.0, 100.0, 99.4), "nope": (100.0, 99.8, 80.6)}),
    "copy_unique": ("@unique_copy", ALGORITHMIC, None,
                    {"learned_offsets": (100.0, 99.9, 98.7), "nope": (100.0, 18.0, 0.0)}),
    "copy_repeat": ("@repeat_copy", ALGORITHMIC, None,
                    {"learned_offsets": (100.0, 25.6, 0.0), "nope": (100.0, 28.0, 0.0)}),
    "addition": ("@addition", ALGORITHMIC, None,
                 {"learned_offsets": (99.7, 26.8, 0.0), "nope": (99.5, 27.7, 0.0)}),
    "dyck1": ("dyck:k=1", LANGUAGE, None,
              {"learned_offsets": (100.0, 100.0, 100.0), "nope": (100.0, 100.0, 100.0)}),
    "d-2": ("@d2", LANGUAGE, None,
            {"learned_offsets": (100.0, 100.0, 100.0), "nope": (100.0, 100.0, 100.0)}),
    "d-3": ("@d3", LANGUAGE, None,
            {"learned_offsets": (100.0, 100.0, 100.0), "nope": (100.0, 100.0, 100.0)}),
    "d-4": ("@d4", LANGUAGE, None,
            {"learned_offsets": (100.0, 100.0, 100.0), "nope": (100.0, 100.0, 100.0)}),
    "d-12": ("@d12", LANGUAGE, None,
             {"learned_offsets": (100.0, 100.0, 100.0), "nope": (100.0, 100.0, 100.0)}),
    "tomita1": ("@tomita1", LANGUAGE, None,
                {"learned_offsets": (100.0, 100.0, 100.0), "nope": (100.0, 100.0, 100.0)}),
    "tomita2": ("@tomita2", LANGUAGE, None,
                {"learned_offsets": (100.0, 100.0, 100.0), "nope": (100.0, 100.0, 100.0)}),
    "tomita3": ("@tomita3", LANGUAGE, None,
                {"learned_offsets": (60.45, 7.7, 0.0), "nope": (21.1, 0.0, 0.0)}),
    "tomita4": ("@tomita4", LANGUAGE, None,
                {"learned_offsets": (100.0, 85.4, 84.4), "nope": (100.0, 16.45, 0.0)}),
    "tomita5": ("@tomita5", LANGUAGE, None,
                {"learned_offsets": (54.4, 0.0, 0.0), "nope": (7.1, 0.0, 0.0)}),
    "tomita6": ("@tomita6", LANGUAGE, None,
                {"learned_offsets": (59.6, 0.0, 0.0), "nope": (2.4, 0.0, 0.0)}),
    "tomita7": ("@tomita7", LANGUAGE, None,
                {"learned_offsets": (100.0, 94.2, 93.2), "nope": (100.0, 87.5, 76.2)}),
    "aabbccddee": ("@a_b_c_d_e_star", LANGUAGE, None,
                   {"learned_offsets": (100.0, 100.0, 100.0), "nope": (100.0, 100.0, 100.0)}),
    "adbc": ("@ab_d_bc", LANGUAGE, None,
             {"learned_offsets": (100.0, 99.8, 98.5), "nope": (100.0, 99.8, 98.5)}),
    "012": ("@zot_z_t", LANGUAGE, None,
            {"learned_offsets": (99.7, 24.4, 1.2), "nope": (18.2, 11.2, 0.0)}),
    "(aa)*": ("@aa_star", LANGUAGE, None,
              {"learned_offsets": (100.0, 100.0, 100.0), "nope": (100.0, 0.0, 0.0)}),
    "(aaaa)*": ("@aaaa_star", LANGUAGE, None,
                {"learned_offsets": (100.0, 92.3, 86.7), "nope": (100.0, 0.0, 0.0)}),
    "(abab)*": ("@abab_star", LANGUAGE, None,
                {"learned_offsets": (100.0, 89.4, 82.3), "nope": (100.0, 0.0, 0.0)}),
    "shuffle2": ("@shuffle2", LANGUAGE, None,
                 {"learned_offsets": (85.9, 82.2, 50.4), "nope": (81.2, 79.8, 42.7)}),
    "anbn": ("@anbn", LANGUAGE, None,
             {"learned_offsets": (100.0, 99.4, 92.3), "nope": (100.0, 100.0, 100.0)}),
    "anbncn": ("@anbncn", LANGUAGE, None,
               {"learned_offsets": (100.0, 91.2, 87.4), "nope": (100.0, 100.0, 100.0)}),
    "anbncndn": ("@anbncndn", LANGUAGE, None,
                 {"learned_offsets": (100.0, 86.4, 75.2), "nope": (100.0, 100.0, 100.0)}),
    "bool3": ("@bool3", LANGUAGE, None,
              {"learned_offsets": (100.0, 100.0, 100.0), "nope": (100.0, 100.0, 100.0)}),
    "bool5": (None, LANGUAGE, _NO_BOOL5,
              {"learned_offsets": (100.0, 75.3, 72.1), "nope": (100.0, 75.3, 72.1)}),
}

# name -> (task, the authors' words); the encoding is the authors' default, none (their
# transformer's positional masking only): the words are not stated per encoding
_BHATTAMISHRA = {
    "Dyck-1": ("dyck:k=1", "generalizes",
               "transformers do well on this subclass of counter languages (Dyck-1 among them)"),
    "Parity": ("parity", "does not generalize",
               "limited performance on languages that involve modular counting"),
    "(aa)*": ("@aa_star", "does not generalize",
              "limited performance on languages that involve modeling periodicity"),
    "(abab)*": ("@abab_star", "does not generalize",
                "limited performance on languages that involve modeling periodicity"),
}


#: Where the toolkit's run of a row differs from the authors' data, as far as their files
#: show it (stated in the row's notes; the reading does not depend on them).
_UNIFORM_DYCK = ("ours are drawn uniformly from the Dyck-1 words of each length (a depth "
                 "walk), online, every length of the range equally often")
_COUNTER_NOTE = ("the authors' repository (commit b39b743) has no generator or configuration "
                 "for this counter language, only its accuracies, so its strings, lengths and "
                 "bins are not known here; the language is Bhattamishra et al.'s (their "
                 "generators at commit 48eea2e; for a^n b^n and its kin their windows count "
                 "n, not letters), as a COUNTER task file; ours are drawn uniformly among the members of each "
                 "length, every length of the training range with members equally often, and "
                 "the bins are in letters as for the other languages")
_PROTOCOL_NOTES = {
    ("huang2025", "dyck1"): (
        "the authors' repository (commit b39b743) has no Dyck-1 generator (its "
        "formal_lang_suite configurations are the regular languages), so how their Dyck-1 "
        "strings were drawn is not known here; " + _UNIFORM_DYCK,),
    **{("huang2025", name): (_COUNTER_NOTE,)
       for name in ("shuffle2", "anbn", "anbncn", "anbncndn", "bool3")},
    ("huang2025", "binary_majority_interleave"): (
        "the authors' run summaries name the task bin_majority_interleave_sep, a variant "
        "whose format their training script at commit 790f068 does not show (its "
        "interleaved task has no separators, as ours)",),
    ("bhattamishra2020", "Dyck-1"): (
        "the authors draw Dyck-1 strings from a grammar, S -> ( S ) with p = 0.5, S S with "
        "q = 0.25, else empty, rejecting those over the length window "
        "(src/utils/dyck_generator.py, src/args.py), 10,000 fixed training strings and 500 "
        "per test bin; " + _UNIFORM_DYCK + ": the length and depth distributions differ",),
}


#: Rows whose strings are drawn as the authors' generator draws them (their D_n strings
#: are a few long blocks, far from a uniform draw; see :mod:`.samplers`).
_SAMPLERS = {("huang2025", f"d-{k}"): f"huang_dn:depth={k}" for k in (2, 3, 4, 12)}
_DN_NOTE = ("strings drawn as the authors' D_n generator draws them (sampler {sampler}: "
            "formal_lang_suite/generators/starfree_generator.py at commit 24c8c29), for "
            "training and for every test bin, afresh rather than a fixed set (their "
            "dataset configs: 200 training and 25 test strings per bin for D-2, 10,000 and "
            "2,000 for D-3, D-4 and D-12)")


_ADDITION_NOTE = ("a task file (experiments/algorithmic/addition.py) drawing a+b= as the "
                  "authors' AdditionDataset does (commit b39b743); the answer is the sum's "
                  "digits then \".\" up to one token less than the input (a task file's answer "
                  "has one length per input length), so exact match also asks for the \".\" "
                  "after the authors' end token; the input length counts \"=\" as theirs does, "
                  "so the bins are theirs; no <bos> token. The authors' five runs per encoding "
                  "(12 x 12 x 768, lr 1e-4) stopped at their step limit at 98.8-99.9 % in "
                  "distribution, and the published figure is the mean over all five "
                  "(algorithmic/lm-out-new-multi-run/addition-average*.txt at 790f068), not "
                  "over seeds at 100 %")
_ANSWER_NOTE = ("a task file with an answer after the separator \"|\" (answer-only loss, "
                "exact match); our input length counts the separator, so training inputs of "
                "at most 50 tokens hold at most 49 before it (the authors' 50) and each test "
                "bin is shifted by one token; no <bos> token")

#: The training set each of Huang et al.'s formal-language sweeps draws, per row: the
#: dataset config's training_size and length window (formal_lang_suite/configs/dataset/
#: *.yaml at commit b39b743) and the sweep's batch size and epochs (experiments/*.yaml):
#: (config name, strings, window, batch, epochs). The committed generated_ds/ files do not
#: all match these windows or the plotted bins, so which set stands behind each plotted
#: figure is not certain; Dyck-1 and the counter languages have no config.
_HUANG_DATASETS = {
    "tomita1": ("tomita-1", 1000, (1, 100), 16, 100),
    "tomita2": ("tomita-2", 1000, (1, 100), 16, 100),
    **{f"tomita{k}": (f"tomita-{k}", 10000, (1, 100), 16, 150 if k == 5 else 100)
       for k in (3, 4, 5, 6, 7)},
    "d-2": ("d-2", 200, (2, 50), 16, 100),
    "d-3": ("d-3", 10000, (2, 50), 16, 100),
    "d-4": ("d-4", 10000, (2, 100), 16, 100),
    "d-12": ("d-12", 10000, (2, 100), 16, 100),
    "aabbccddee": ("aa_star_bb_star_cc_star_dd_star_ee_star", 10000, (5, 200), 16, 100),
    "adbc": ("ab_star_d_bc_star", 10000, (2, 50), 16, 100),
    "012": ("012_star_0_2_star", 10000, (2, 50), 16, 100),
    "(aa)*": ("aa_star", 40, (2, 100), 16, 100),
    "(aaaa)*": ("aaaa_star", 125, (4, 500), 16, 100),
    "(abab)*": ("abab_star", 125, (4, 500), 4, 150),
}


#: The lengths of the datasets Huang et al. committed with their formal-language suite
#: (formal_lang_suite/generated_ds/<LANG>/ at commit b39b743, added in 24c8c29), measured
#: in the files: (folder, training strings (count, distinct), training lengths, lengths of
#: test files bin0, bin1, bin2). Their bins are not the algorithmic tasks' [0, 50],
#: [51, 100], [101, 150]: the Tomita sets train to 100 and draw both later bins from
#: 101-150 (their create_corpus_tomita does not move the window in its "leak" branch),
#: D-3, D-4 and D-12 train to 100 and test to 200 and 300, the rows 012 and adbc keep the
#: lower end of every bin at the start (their "lower window unchanged").
AUTHORS_DATA = {
    "tomita1": ("Tomita-1", (1000, 100), (1, 100), ((1, 99), (101, 149), (102, 149))),
    "tomita2": ("Tomita-2", (1000, 50), (2, 100), ((12, 100), (102, 142), (102, 146))),
    "tomita3": ("Tomita-3", (10000, 6408), (1, 100), ((1, 100), (101, 150), (101, 150))),
    "tomita4": ("Tomita-4", (10000, 9325), (1, 100), ((1, 100), (101, 150), (101, 150))),
    "tomita5": ("Tomita-5", (10000, 8725), (2, 100), ((2, 100), (102, 150), (102, 150))),
    "tomita6": ("Tomita-6", (10000, 8722), (2, 100), ((2, 100), (101, 150), (101, 150))),
    "tomita7": ("Tomita-7", (10000, 8263), (17, 100), ((29, 100), (101, 150), (101, 150))),
    "d-2": ("D-2", (200, 200), (12, 50), ((10, 30), (86, 100), (108, 150))),
    "d-3": ("D-3", (10000, 10000), (2, 100), ((12, 100), (84, 200), (120, 300))),
    "d-4": ("D-4", (10000, 10000), (36, 100), ((40, 100), (98, 200), (144, 300))),
    "d-12": ("D-12", (10000, 10000), (48, 100), ((54, 100), (110, 200), (172, 300))),
    "aabbccddee": ("AAStarBBStarCCStarDDStarEEStar", (10000, 10000), (60, 200),
                   ((79, 200), (139, 300), (158, 400))),
    "adbc": ("ABStar_D_BCStar", (10000, 10000), (2, 49), ((4, 49), (3, 99), (5, 149))),
    "012": ("012Star_0_2Star", (10000, 10000), (2, 49), ((4, 49), (2, 99), (6, 149))),
    "(aa)*": ("AAStar", (40, 26), (2, 98), ((8, 86), (102, 148), (150, 194))),
    "(aaaa)*": ("AAAAStar", (125, 72), (4, 496), ((8, 488), (512, 596), (600, 696))),
    "(abab)*": ("ABABStar", (125, 75), (4, 500), ((12, 444), (508, 596), (600, 700))),
}

#: The windows a run takes to follow the authors' data of a language: (longest training
#: length, test bins). Read off :data:`AUTHORS_DATA` by one rule: train to the training
#: set's longest string, rounded up to the window its dataset config draws from; a later
#: bin runs from just past the previous window to the end of the window its file was
#: drawn from (the file's longest string, or just above it for the few strings of (aa)*),
#: and two files of the same window are one bin; a bin whose authors' file starts near
#: the beginning keeps the lower end at 1, as theirs does.
#: The protocol's own lengths, in the same form (a language whose data has them).
_PROTOCOL_LENGTHS = (50, ((1, 50), (51, 100), (101, 150)))
AUTHORS_LENGTHS = {
    **{f"tomita{k}": (100, ((1, 100), (101, 150))) for k in range(1, 8)},
    "d-2": _PROTOCOL_LENGTHS,
    **{f"d-{k}": (100, ((1, 100), (101, 200), (201, 300))) for k in (3, 4, 12)},
    "aabbccddee": (200, ((1, 200), (201, 300), (301, 400))),
    "adbc": (50, ((1, 50), (1, 100), (1, 150))),
    "012": (50, ((1, 50), (1, 100), (1, 150))),
    "(aa)*": (100, ((1, 100), (101, 150), (151, 200))),
    "(aaaa)*": (500, ((1, 500), (501, 600), (601, 700))),
    "(abab)*": (500, ((1, 500), (501, 600), (601, 700))),
}


def _authors_data_note(name: str) -> str | None:
    if name not in AUTHORS_DATA:
        return None
    folder, (count, distinct), (lo, hi), bins = AUTHORS_DATA[name]
    spans = " / ".join(f"{a}-{b}" for a, b in bins)
    same = AUTHORS_LENGTHS[name] == _PROTOCOL_LENGTHS
    return (f"the authors' committed data for this language (formal_lang_suite/generated_ds/"
            f"{folder}/, which their training script reads when present) trains on "
            f"{count:,} strings ({distinct:,} distinct) of lengths {lo}-{hi} and tests on "
            f"files of lengths {spans} (their Bin 0 / 1 / 2)"
            + (", the windows of the protocol's <=50 / 51-100 / 101-150" if same else
               ", not the protocol's <=50 / 51-100 / 101-150 that the default run uses; "
               "--windows authors runs its windows"))


def authors_set_size(name: str) -> int:
    """The number of training strings of a Huang et al. language row's dataset config
    (:data:`ASSUMED_LANGUAGE_SET` where the authors' files hold none)."""
    return _HUANG_DATASETS[name][1] if name in _HUANG_DATASETS else ASSUMED_LANGUAGE_SET


def authors_windows(paper: str, name: str) -> tuple[int, tuple[tuple[int, int], ...]] | None:
    """(longest training length, test bins) following the authors' committed data of a
    row of ``paper`` (:data:`AUTHORS_LENGTHS`, Huang et al.'s), or None where its authors
    committed none."""
    return AUTHORS_LENGTHS.get(name) if paper == "huang2025" else None


def _language_budget(name: str) -> str:
    """How the authors' sweep trained a language row, from their config files."""
    grid = ("at every point of a grid of layers {1, 2, 4} x width {32, 64} x heads "
            "{1, 2, 4} per encoding, with no early stop; how the plotted figure was chosen "
            "from the grid is not stated in the files read")
    if name not in _HUANG_DATASETS:
        return ("the authors' files hold no configuration for this language; their "
                "formal-language sweeps (formal_lang_suite/train_with_ce.py, "
                "experiments/*.yaml) train 100 epochs at batch 16 over a fixed set drawn by "
                "the dataset config (40 to 10,000 strings, so about 300 to 93,750 steps) "
                + grid)
    config, size, (lo, hi), batch, epochs = _HUANG_DATASETS[name]
    steps = epochs * -(-size // batch)
    return (f"the authors' sweep for this language (formal_lang_suite/experiments/, dataset "
            f"config configs/dataset/{config}.yaml) trains {epochs} epochs at batch {batch} "
            f"over {size:,} strings of lengths {lo}-{hi}, about "
            f"{steps:,} steps (train_with_ce.py: a cross-entropy over next-symbol-set "
            f"classes), " + grid
            + _window_mismatch(name, lo, hi))


def _window_mismatch(name: str, lo: int, hi: int) -> str:
    """Where a dataset config's window is not the one of the data committed beside it."""
    if name not in AUTHORS_DATA:
        return ""
    _, _, (dlo, dhi), _ = AUTHORS_DATA[name]
    if dhi <= hi and 2 * dhi > hi:
        return ""
    return (f"; the committed data trains on lengths {dlo}-{dhi}, not the config's {lo}-{hi}, "
            f"so the config was changed after the data was drawn")


#: A language without a dataset config is assumed to take the most common one's size.
ASSUMED_LANGUAGE_SET = 10000


def authors_language_steps(name: str) -> tuple[int, int, str]:
    """The optimizer steps and batch size of the authors' sweep for a Huang et al.
    language row (its dataset config's strings x epochs / batch) and where they come from."""
    if name in _HUANG_DATASETS:
        config, size, _, batch, epochs = _HUANG_DATASETS[name]
        return epochs * -(-size // batch), batch, (f"{epochs} epochs at batch {batch} over the "
                                            f"{size:,} strings of configs/dataset/{config}.yaml")
    return 100 * -(-ASSUMED_LANGUAGE_SET // 16), 16, (
        f"100 epochs at batch 16 over {ASSUMED_LANGUAGE_SET:,} strings, assumed (the most "
        f"common dataset config's size; the authors' files hold none for this language)")


#: How Huang et al.'s algorithmic runs were trained (their files at commit 790f068).
_HUANG_ALGORITHMIC_BUDGET = ("the authors' algorithmic runs trained up to 30,000 steps at "
                             "batch 64 with the architecture their sweep chose")


def _huang_rows() -> list[PublishedRow]:
    rows = []
    for name, (task, kind, unavailable, by_encoding) in _HUANG.items():
        sampler = _SAMPLERS.get(("huang2025", name), "")
        notes = _PROTOCOL_NOTES.get(("huang2025", name), ())
        if kind == LANGUAGE:
            data_note = _authors_data_note(name)
            notes += (data_note or "the authors' repository holds no committed data for this "
                      "language, so the lengths behind its figure are not known here; the "
                      "protocol's <=50 / 51-100 / 101-150 are assumed",)
        if sampler:
            notes += (_DN_NOTE.format(sampler=sampler),)
        if kind == ALGORITHMIC and task and task.startswith("@"):
            notes += (_ADDITION_NOTE if name == "addition" else _ANSWER_NOTE,)
        for encoding, bins in by_encoding.items():
            rows.append(PublishedRow(
                paper="huang2025", name=name, task=task or "", kind=kind, encoding=encoding,
                bins=tuple(b / 100 for b in bins), source=HUANG_SOURCE,
                unavailable=unavailable, notes=notes, sampler=sampler,
                budget=(_language_budget(name) if kind == LANGUAGE
                        else _HUANG_ALGORITHMIC_BUDGET)))
    return rows


_BHATTAMISHRA_LOSS = ("the authors fit sigmoid outputs per symbol by squared error "
                      "(src/model.py at commit 48eea2e: nn.MSELoss over the multi-hot targets); "
                      "ours is the "
                      "per-symbol binary cross-entropy over the same targets")


def _bhattamishra_rows() -> list[PublishedRow]:
    rows = []
    for name, (task, reading, words) in _BHATTAMISHRA.items():
        for encoding in ("nope",):
            rows.append(PublishedRow(
                paper="bhattamishra2020", name=name, task=task, kind=LANGUAGE,
                encoding=encoding, bins=None, reading=reading, source=BHATTAMISHRA_SOURCE,
                notes=(f"the authors: {words}",)
                + _PROTOCOL_NOTES.get(("bhattamishra2020", name), ())
                + (_BHATTAMISHRA_LOSS,)))
    return rows


PAPERS = {"huang2025": _huang_rows, "bhattamishra2020": _bhattamishra_rows}


def published_rows(paper: str) -> list[PublishedRow]:
    """The rows of a paper's table (``ConfigError`` naming the papers for an unknown one)."""
    if paper not in PAPERS:
        raise ConfigError(f"no published table for {paper!r}; papers: {', '.join(PAPERS)}")
    return PAPERS[paper]()


def language_file(name: str) -> Path:
    """The path of a shipped task file (``@name`` in a row's task): a language, or an
    algorithmic task with an answer."""
    for folder in (LANGUAGES_DIR, ALGORITHMIC_DIR):
        path = folder / f"{name}.py"
        if path.is_file():
            return path
    raise ConfigError(f"no shipped task file {name!r} in {LANGUAGES_DIR} or {ALGORITHMIC_DIR}")
