"""SAT through the command line: solve, export --format cnf, read-solution of a certificate."""

import json
import shutil
import subprocess
import sys

import pytest

from ilp_pyramid.backends import sat
from ilp_pyramid.puzzles.bel.solution import parse_drawing
from ilp_pyramid.verify.bel import verify_solution


def _drawing(out: str):
    return parse_drawing(out[out.index("+"):])


@pytest.mark.parametrize("solver, n", [("cadical", 3), ("kissat", 3), ("glucose4", 2)])
def test_solve_with_a_sat_solver_prints_a_verified_drawing(cli, solver, n):
    result = cli("solve", n, "--solver", solver)
    assert result.code == 0, result.err
    assert "clauses" in result.out
    solution = _drawing(result.out)
    assert solution.n == n and verify_solution(solution).valid


@pytest.mark.parametrize("formulation", ["support", "rotations"])
def test_solve_json_with_other_encodings(cli, formulation):
    result = cli("solve", 2, "--solver", "kissat", "--formulation", formulation, "--card",
                 "totalizer", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["status"] == "solved" and data["formulation"] == formulation
    assert data["variables"] > 0 and data["constraints"] > 0


@pytest.mark.slow
def test_solve_n4_with_cadical(cli):
    result = cli("solve", 4, "--solver", "cadical", "--time-limit", "300")
    assert result.code == 0, result.err
    assert verify_solution(_drawing(result.out)).valid


def test_sat_timeout_is_reported_never_a_solution(cli):
    result = cli("solve", 4, "--solver", "kissat", "--time-limit", "0.3")
    assert result.code == 3
    assert "timeout" in result.out and "+---" not in result.out
    data = json.loads(cli("solve", 4, "--solver", "cadical153", "--time-limit", "0.3",
                          "--json").out)
    assert data["status"] == "timeout" and data["solution"] is None


def _killed(name, clauses, seed, send):
    import os
    import signal

    os.kill(os.getpid(), signal.SIGKILL)


def test_killed_solver_is_a_clear_error(cli, monkeypatch):
    monkeypatch.setattr(sat, "_search", _killed)
    # N=3: past sat.IN_PROCESS_CLAUSES, so solved in a child (N=2 is solved in process)
    result = cli("solve", 3, "--solver", "cadical")
    assert result.code == 1
    assert "killed by SIGKILL" in result.err and "+---" not in result.out
    assert "Traceback" not in result.err + result.out


@pytest.mark.parametrize("args, fragment", [
    (["solve", "3", "--solver", "kissat", "--formulation", "nope"], "unknown formulation"),
    (["solve", "3", "--solver", "highs", "--formulation", "support"], "unknown formulation"),
    (["solve", "3", "--solver", "kissat", "--card", "nope"], "unknown cardinality"),
    (["export", "3", "-o", "x.cnf", "--formulation", "nope"], "unknown CNF encoding"),
])
def test_bad_sat_input_is_one_line_exit_2(cli, args, fragment):
    result = cli(*args)
    assert result.code == 2
    assert fragment in result.err and len(result.err.strip().splitlines()) == 1


def _outside_solver(cnf_path, cert_path):
    """Solve an exported CNF outside this process: Debian's cadical binary when installed,
    else python-sat in a separate interpreter that only reads DIMACS (no ilp_pyramid)."""
    binary = shutil.which("cadical") or shutil.which("kissat")
    if binary:
        with open(cert_path, "w") as out:
            code = subprocess.run([binary, str(cnf_path)], stdout=out, timeout=120).returncode
        assert code == 10  # SAT competition convention: 10 = satisfiable
        return
    script = (
        "import sys\n"
        "from pysat.formula import CNF\n"
        "from pysat.solvers import Solver\n"
        "f = CNF(from_file=sys.argv[1])\n"
        "with Solver(name='minisat22', bootstrap_with=f.clauses) as s:\n"
        "    assert s.solve()\n"
        "    m = s.get_model()\n"
        "print('c solved by pysat minisat22 in a separate process')\n"
        "print('s SATISFIABLE')\n"
        "for i in range(0, len(m), 10):\n"
        "    print('v ' + ' '.join(map(str, m[i:i + 10])))\n"
        "print('v 0')\n"
    )
    with open(cert_path, "w") as out:
        subprocess.run([sys.executable, "-c", script, str(cnf_path)], stdout=out, check=True,
                       timeout=120)


@pytest.mark.parametrize("name, encoding", [("bel3.cnf", "counts"), ("bel3.cnf.gz", "rotations")])
def test_exported_cnf_solved_outside_reads_back(cli, tmp_path, name, encoding):
    cnf_path = tmp_path / name
    result = cli("export", 3, "-o", cnf_path, "--formulation", encoding)
    assert result.code == 0, result.err
    assert "clauses" in result.out
    cert = tmp_path / "bel3.cert"
    _outside_solver(cnf_path, cert)
    read = cli("read-solution", cnf_path, cert)
    assert read.code == 0, read.err
    assert read.out.startswith("valid")
    assert verify_solution(_drawing(read.out)).valid
    data = json.loads(cli("read-solution", cnf_path, cert, "--json").out)
    assert data["valid"] and data["n"] == 3


@pytest.fixture
def exported(cli, tmp_path):
    path = tmp_path / "bel2.cnf"
    assert cli("export", 2, "-o", path).code == 0
    return path


def _cert(tmp_path, text):
    path = tmp_path / "cert.txt"
    path.write_text(text)
    return path


def _good_model(exported):
    from pysat.formula import CNF
    from pysat.solvers import Solver

    with Solver(name="cadical195", bootstrap_with=CNF(from_file=str(exported)).clauses) as s:
        assert s.solve()
        return s.get_model()


@pytest.mark.parametrize("text, code, fragment", [
    ("s UNSATISFIABLE\n", 1, "UNSATISFIABLE"),
    ("s UNKNOWN\n", 1, "no model"),
    ("s SATISFIABLE\n", 2, "lists no 'v' literals"),
    ("s SATISFIABLE\nv 1 -2 abc 0\n", 2, "'abc' is not a literal"),
    ("s MAYBE\n", 2, "unknown status"),
    ("hello world\n", 2, "not a literal"),
    ("s SATISFIABLE\nv 100000 0\n", 2, "assigns none of the model's line variables"),
])
def test_malformed_certificates_are_one_line_errors(cli, tmp_path, exported, text, code,
                                                   fragment):
    result = cli("read-solution", exported, _cert(tmp_path, text))
    assert result.code == code, result.err
    assert fragment in result.err
    assert len(result.err.strip().splitlines()) == 1
    assert "+---" not in result.out and "Traceback" not in result.err


def test_certificate_with_a_wrong_labelling_is_invalid(cli, tmp_path, exported):
    """A well-formed model that breaks the puzzle decodes, fails verification, exits 1."""
    model = _good_model(exported)
    # Make every line carry label 0: x ... label 0 true, all other labels false.
    from ilp_pyramid.puzzles.bel.cnf import read_cnf_info

    info = read_cnf_info(exported.read_text())
    flipped = [(abs(lit) if info.line_vars[abs(lit)][3] == 0 else -abs(lit))
               if abs(lit) in info.line_vars else lit for lit in model]
    text = "s SATISFIABLE\nv " + " ".join(map(str, flipped)) + " 0\n"
    result = cli("read-solution", exported, _cert(tmp_path, text))
    assert result.code == 1
    assert result.out.startswith("invalid") and "+---" not in result.out


def test_certificate_with_two_labels_on_a_line_is_refused(cli, tmp_path, exported):
    model = _good_model(exported)
    forced = {1, 2, 3}  # Z(0,0) label 0, 1, 2 in the comment map
    text = "v " + " ".join(str(abs(v) if abs(v) in forced else v) for v in model) + " 0\n"
    result = cli("read-solution", exported, _cert(tmp_path, text))
    assert result.code == 2 and "line Z_0_0 has 3 labels" in result.err


def test_minisat_style_result_file_reads_back(cli, tmp_path, exported):
    model = _good_model(exported)
    text = "SAT\n" + " ".join(map(str, model)) + " 0\n"
    result = cli("read-solution", exported, _cert(tmp_path, text))
    assert result.code == 0 and result.out.startswith("valid")


def test_a_model_that_does_not_verify_is_never_printed(cli, monkeypatch):
    """A (buggy) solver answer that breaks the puzzle is refused in one line, exit 1."""
    from ilp_pyramid.backends.base import Result, Status
    from ilp_pyramid.puzzles.bel.cnf import build_cnf

    cnf = build_cnf(2)
    all_zero = [cnf.line_var(i, label) * (1 if label == 0 else -1)
                for i in range(len(cnf.pyramid.lines)) for label in range(3)]
    monkeypatch.setattr(sat, "solve", lambda *a, **k: Result("kissat", Status.SOLVED, 0.1,
                                                              model=all_zero))
    result = cli("solve", 2, "--solver", "kissat")
    assert result.code == 1
    assert "fails the check" in result.err and len(result.err.strip().splitlines()) == 1
    assert "+---" not in result.out
    monkeypatch.setattr(sat, "solve", lambda *a, **k: Result("kissat", Status.SOLVED, 0.1,
                                                              model=[-v for v in
                                                                     range(1, 200)]))
    result = cli("solve", 2, "--solver", "kissat", "--json")
    assert result.code == 1 and "does not decode" in result.err and not result.out
