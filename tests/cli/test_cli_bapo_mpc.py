import json

from theorybench.cli.mpc import parse_ns


def test_bandwidth_json(cli, capsys):
    rc, out, _ = cli("bapo", "bandwidth", "parity", "--n", "4..6", "--format", "json")
    rows = json.loads(out)
    assert rc == 0 and all(r["bits"] == 1 for r in rows)
    assert {r["n"] for r in rows} == {4, 5, 6}


def test_frontier_and_verify(cli, capsys):
    rc, out, _ = cli("bapo", "frontier", "index", "--n", "3", "--max-b", "1", "--format", "json")
    assert rc == 0 and [0, 1] in json.loads(out)["pareto"]
    rc, out, _ = cli("bapo", "verify", "index", "--n", "5")
    assert rc == 0 and "ok" in out


def test_mpc_rounds(cli, capsys):
    rc, out, _ = cli("mpc", "rounds", "parity", "--n", "64..256", "--format", "json")
    rows = json.loads(out)
    assert rc == 0 and [r["n"] for r in rows] == [64, 128, 256]
    assert parse_ns("64..65536")[-1] == 65536 and parse_ns("4..6") == [4, 5, 6]


def test_errors_exit_2(cli, capsys):
    rc, _, err = cli("bapo", "frontier", "parity", "--n", "40")
    assert rc == 2 and "smaller n" in err
    rc, _, err = cli("mpc", "rounds", "nosuchtask", "--n", "8")
    assert rc == 2
    rc, _, err = cli("mpc", "rounds", "dyck", "--n", "1024", "--delta", "0.3")
    assert rc == 2 and "coordinator" in err and "delta >= 0.5" in err


def test_frontier_json_rows_carry_n_and_point(cli, capsys):
    rc, out, _ = cli("bapo", "frontier", "index", "--n", "3", "--max-b", "1", "--format", "json")
    rows = json.loads(out)["rows"]
    assert rc == 0 and all({"n", "length", "a", "b", "status"} <= set(r) for r in rows)
    assert {(r["n"], r["length"]) for r in rows} == {(3, 4)}
    assert [(r["a"], r["b"]) for r in rows] == [(3, 0), (0, 1)]


def test_bad_inputs_exit_2(cli_exit):
    for argv, msg in ((("bapo", "frontier", "parity", "--n", "4..6"), "one n"),
                      (("bapo", "frontier", "parity", "--n", "4", "--max-a", "-1"), "from 0 to"),
                      (("bapo", "bandwidth", "parity", "--n", "40"), "smaller n"),
                      (("mpc", "rounds", "parity", "--n", "64", "--c", "0"), "--c"),
                      (("mpc", "rounds", "parity", "--n", "64", "--instances", "0"),
                       "--instances"),
                      (("mpc", "rounds", "parity", "--n", "64..1024", "--c", "inf"), "finite"),
                      (("mpc", "rounds", "parity", "--n", "64", "--instances", "1000000000"),
                       "from 1 to 10,000"),
                      (("bapo", "bandwidth", "parity", "--n", "34", "--limit",
                        str(1 << 40)), "of memory, above the budget")):
        rc, _, err = cli_exit(*argv)
        assert rc == 2 and msg in err and "Traceback" not in err


def test_mpc_range_checked_up_front(cli, capsys):
    # reach_undirected accepts n <= 1022: the powers of two above are skipped with one note
    rc, out, err = cli("mpc", "rounds", "reach_undirected", "--n", "64..4096", "--instances", "1", "--format", "json")
    assert rc == 0 and [r["n"] for r in json.loads(out)] == [64, 128, 256, 512]
    assert err.count("note:") == 1 and "1024, 2048, 4096" in err
    rc, out, err = cli("mpc", "rounds", "reach_undirected", "--n", "2048..4096")
    assert rc == 2 and out == "" and "no n of the range is valid" in err


def test_mpc_algorithm_limit_skips_before_work(capsys):
    from theorybench import tasks
    from theorybench.formal.mpc.algorithms import limit_reason
    from theorybench.formal.mpc.simulator import MPC
    import math
    t = tasks.get("reach_directed", n=64)
    N = t.decision_view()[0].length
    # independent oracle of the layout: input blocks of floor(s/4) words, the V node states
    # spread over the machines, 5 more words per machine, all within s
    for c in (0.01, 1.0, 4.0):
        s = MPC(N, delta=0.5, c=c).s
        b = s // 4
        fits = b >= 1 and b + math.ceil(t.V / math.ceil(N / b)) + 5 <= s
        assert (limit_reason(t, 0.5, c) is None) == fits


def test_bapo_ranges_skip_invalid_n(cli, capsys):
    rc, out, err = cli("bapo", "bandwidth", "majority", "--n", "4..8", "--format", "json")
    assert rc == 0 and sorted({r["n"] for r in json.loads(out)}) == [5, 7]
    assert "skipping n=4, 6, 8" in err
    rc, out, err = cli("bapo", "bandwidth", "parity", "--n", "4..12", "--limit", "600", "--format", "json")
    assert rc == 0 and sorted({r["n"] for r in json.loads(out)}) == [4, 5, 6, 7, 8, 9]
    assert "--limit" in err
