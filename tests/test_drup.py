"""The own DRUP checker (verify/drup.py): real refutations by the package's proof-writing
CaDiCaL are verified, tampered ones rejected, the binary format read as drat-trim's
documentation spells it, and its verdicts agree with drat-trim's where drat-trim is built."""

from __future__ import annotations

import random
import shutil
import subprocess
from itertools import combinations
from pathlib import Path

import pytest

from ilp_pyramid.backends import drat
from ilp_pyramid.verify import drup


def pigeonhole(pigeons: int, holes: int) -> list[list[int]]:
    """Every pigeon in a hole, no two in one: unsatisfiable when pigeons > holes."""
    def var(pigeon: int, hole: int) -> int:
        return pigeon * holes + hole + 1

    every = [[var(p, h) for h in range(holes)] for p in range(pigeons)]
    apart = [[-var(p, h), -var(q, h)] for h in range(holes)
             for p, q in combinations(range(pigeons), 2)]
    return every + apart


def random_unsatisfiable(seed: int, variables: int = 60) -> list[list[int]]:
    """Random 3-SAT past the threshold, drawn until CaDiCaL finds no model."""
    rng = random.Random(seed)
    while True:
        clauses = [[v * rng.choice((-1, 1)) for v in rng.sample(range(1, variables + 1), 3)]
                   for _ in range(int(variables * 4.8))]
        if drat.refutation(clauses, []) is not None:
            return clauses


@pytest.fixture(scope="module")
def php():
    clauses = pigeonhole(5, 4)
    proof = drat.refutation(clauses, [])
    assert proof is not None
    return clauses, proof


def verdict(clauses, proof_lines) -> drup.Verdict:
    return drup.check(clauses, drup.parse_proof(proof_lines))


def test_a_solver_written_refutation_is_verified(php):
    clauses, proof = php
    judged = verdict(clauses, proof)
    assert judged.verified and judged.reason == ""
    assert judged.lemmas == sum(1 for line in proof if not line.startswith("d"))
    # the same proof as one text, as read from a file
    assert drup.check(clauses, drup.parse_proof("\n".join(proof).encode())).verified


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_refutations_of_random_formulas_are_verified(seed):
    clauses = random_unsatisfiable(seed)
    proof = drat.refutation(clauses, [])
    assert any(line.startswith("d ") for line in proof)  # deletions among the steps
    assert verdict(clauses, proof).verified


def test_the_assumptions_are_part_of_the_formula():
    # 4 pigeons in 4 holes fit; with pigeon 0 barred from every hole but hole 0 and pigeon 1
    # held in hole 0 they do not
    clauses = pigeonhole(4, 4)
    assumptions = [-2, -3, -4, 5]
    proof = drat.refutation(clauses, assumptions)
    assert proof is not None
    assert verdict(drat.formula(clauses, assumptions), proof).verified
    assert not verdict(clauses, proof).verified


def test_a_lemma_that_does_not_follow_is_rejected(php):
    clauses, proof = php
    judged = verdict(clauses, ["1 0", *proof])  # pigeon 0 in hole 0: nothing forces that
    assert not judged.verified
    assert judged.reason.startswith("lemma 1 is not RUP (RAT checking is not implemented")


def test_a_proof_that_stops_short_of_the_empty_clause_is_rejected(php):
    clauses, proof = php
    judged = verdict(clauses, proof[: len(proof) // 2])
    assert not judged.verified and judged.reason == "the proof does not derive the empty clause"
    # the empty clause left unstated, when the lemmas' units already clash, follows anyway
    assert proof[-1].split() == ["0"]
    assert verdict(clauses, proof[:-1]).verified


def test_deletions_are_honoured(php):
    clauses, proof = php
    # the "no two pigeons in one hole" clauses deleted first: what is left is satisfiable
    deleted = [f"d {' '.join(map(str, clause))} 0" for clause in clauses if len(clause) == 2]
    judged = verdict(clauses, [*deleted, *proof])
    assert not judged.verified and "is not RUP" in judged.reason


def test_deleting_a_unit_or_a_reason_is_ignored():
    # 1 is a unit, and the reason that 2 holds: the proof deletes both and still refutes
    clauses = [[1], [-1, 2], [-2, 3], [-2, -3]]
    judged = verdict(clauses, ["d 1 0", "d -1 2 0", "0"])
    assert judged.verified and judged.deletions_ignored == 2


def test_the_binary_format_is_read_as_drat_trim_documents_it():
    # drat-trim's own example: "d -63 -8193 0" is 64 7f 83 80 01 00
    assert drup.parse_proof(bytes.fromhex("647f83800100")) == [(True, [-63, -8193])]
    # 'a' 1 2 0, then the empty clause
    assert drup.parse_proof(bytes.fromhex("6102040061 00".replace(" ", ""))) == [
        (False, [1, 2]), (False, [])]
    with pytest.raises(drup.ProofError):
        drup.parse_proof(bytes.fromhex("6102"))


def test_files_are_read_with_a_size_limit(tmp_path, php):
    clauses, proof = php
    cnf, drat_file = tmp_path / "php.cnf", tmp_path / "php.drat"
    cnf.write_text(f"c pigeons\np cnf 20 {len(clauses)}\n"
                   + "".join(" ".join(map(str, c)) + " 0\n" for c in clauses))
    drat_file.write_text("\n".join(proof) + "\n")
    assert drup.check_files(cnf, drat_file).verified
    with pytest.raises(drup.ProofError, match="larger than"):
        drup.check_files(cnf, drat_file, limit=100)


def test_the_package_falls_back_to_the_own_checker(php, no_drat_trim):
    clauses, proof = php
    assert drat.checker_name() == drat.OWN_CHECKER
    assert drat.check(clauses, [], proof) == drat.VERIFIED
    assert drat.check(clauses, [], ["1 0", *proof]).startswith(
        f"{drat.REJECTED}: lemma 1 is not RUP")
    assert drat.check(clauses, [], [*proof[:-1], "1 x 0"]).startswith(
        f"{drat.REJECTED}: not a DRAT token")


@pytest.mark.skipif(shutil.which("drat-trim") is None, reason="drat-trim is not installed")
def test_verdicts_agree_with_drat_trim(tmp_path):
    cases = []
    for pigeons in (3, 4, 5):
        clauses = pigeonhole(pigeons, pigeons - 1)
        proof = drat.refutation(clauses, [])
        cases += [(clauses, proof), (clauses, proof[:-1]), (clauses, ["1 0", *proof])]
    for seed in (1, 2):
        clauses = random_unsatisfiable(seed)
        proof = drat.refutation(clauses, [])
        cases += [(clauses, proof), (clauses, proof[: len(proof) // 2])]
    for number, (clauses, proof) in enumerate(cases):
        cnf, drat_file = tmp_path / f"{number}.cnf", tmp_path / f"{number}.drat"
        variables = max(abs(lit) for clause in clauses for lit in clause)
        cnf.write_text(f"p cnf {variables} {len(clauses)}\n"
                       + "".join(" ".join(map(str, c)) + " 0\n" for c in clauses))
        drat_file.write_text("".join(line + "\n" for line in proof))
        run = subprocess.run(["drat-trim", str(cnf), str(drat_file)], capture_output=True,
                             text=True, timeout=60)
        theirs = "s VERIFIED" in run.stdout.splitlines()
        assert drup.check_files(Path(cnf), Path(drat_file)).verified == theirs, (number, run.stdout)
