"""One option vocabulary across the whole command tree, and docs/cli.md as its table.

Every check walks the tree as it is, so a command added anywhere (a new group, a new puzzle)
is checked without a change here; after such a change only docs/cli.md needs regenerating:
    python -m ilp_pyramid.cli.doc > docs/cli.md
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from ilp_pyramid.cli import doc as cli_doc

ROOT = Path(__file__).resolve().parent.parent
REGENERATE = "regenerate it: python -m ilp_pyramid.cli.doc > docs/cli.md"

# Commands that print no result of their own, and why (a command not named here must take
# --json). Groups are listed only when their callback runs something.
NO_RESULT: dict[str, str] = {
    "ilp-pyramid ui": "a server: its address goes to stderr, its answers to the pages "
                      "(stdout stays empty, tests/test_ui_server.py)",
}


@pytest.fixture(scope="module")
def rows() -> list[cli_doc.Row]:
    return cli_doc.rows()


@pytest.fixture(scope="module")
def tree() -> list:
    return list(cli_doc.commands())


def test_docs_cli_md_is_the_table_of_the_command_tree():
    written = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert written == cli_doc.markdown(), f"docs/cli.md is out of date: {REGENERATE}"


def test_every_row_is_what_help_shows(cli, rows):
    # The table is built from the parameters' help records; the help a user gets comes
    # through the real entry point. Each row's flags and metavar must be on its command's
    # help page, and the page must list no option the table lacks.
    by_command: dict[str, list[cli_doc.Row]] = defaultdict(list)
    for row in rows:
        by_command[row.command].append(row)
    assert len(by_command) > 10
    for command, listed in by_command.items():
        args = command.split()[1:]
        page = cli(*args, "--help")
        assert page.code == 0, (command, page.err)
        text = " ".join(page.out.split())
        for row in listed:
            if row.argument:  # Typer versions differ in the case of an argument's name
                assert row.long[0].lower() in text.lower(), (command, row.long)
                continue
            for flag in row.short + row.long:
                assert flag in text, (command, flag)
            # the help text in full (wrapping may break a line at a hyphen: no spaces)
            assert "".join(row.meaning.split()) in "".join(text.split()), (command, row.long)
            if row.default and row.default != "required":
                assert row.default in text, (command, row.long, row.default)
        shown = {word.rstrip(",") for left in option_columns(page.out)
                 for word in left.split() if word.startswith("--")}
        documented = {flag for row in listed for flag in row.long} | {"--help"}
        assert shown <= documented, (command, shown - documented, REGENERATE)


def option_columns(page: str) -> list[str]:
    """The left column of the Options section of a help page: "-o, --output <path>"."""
    section, found = "", []
    for line in page.splitlines():
        if line and not line.startswith(" "):
            section = line  # "Usage: ...", "Arguments:", "Options:", "Commands:"
        elif section == "Options:" and line.startswith("  -"):  # wrapped help: deeper
            found.append(line.strip().split("  ")[0])
    return found


def test_a_short_flag_means_one_long_option_everywhere(rows):
    meaning: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        for short in row.short:
            meaning[short].add(row.long[0])
    clashes = {short: longs for short, longs in meaning.items() if len(longs) > 1}
    assert not clashes


def test_a_long_option_has_one_short_flag_and_one_type_everywhere(rows):
    shorts: dict[str, set[tuple[str, ...]]] = defaultdict(set)
    kinds: dict[str, set[tuple[str, bool]]] = defaultdict(set)
    for row in rows:
        if row.argument:
            continue
        if row.short:  # a command may leave the short flag out, never give another one
            shorts[row.long[0]].add(row.short)
        kinds[row.long[0]].add((row.kind, row.repeatable))
    assert not {name: found for name, found in shorts.items() if len(found) > 1}
    assert not {name: found for name, found in kinds.items() if len(found) > 1}


@pytest.mark.parametrize("option, kind", [("--seed", "int"), ("--jobs", "int"),
                                          ("--threads", "int"), ("--time-limit", "float"),
                                          ("--output", "path"), ("--format", "text"),
                                          ("--json", "flag")])
def test_the_shared_options_keep_their_type_and_short_flag(rows, option, kind):
    found = [row for row in rows if row.long[:1] == (option,)]
    assert found, option
    assert {row.kind for row in found} == {kind}
    expected_short = {"--output": ("-o",), "--format": ("-f",), "--jobs": ("-j",)}
    if option in expected_short:
        assert {row.short for row in found} == {expected_short[option]}


def test_every_command_that_gives_a_result_takes_json(tree, rows):
    with_json = {row.command for row in rows if "--json" in row.long}
    missing = []
    for command, ctx in tree:
        runs = not hasattr(command, "list_commands") or getattr(
            command, "invoke_without_command", False)
        if runs and ctx.command_path not in with_json and ctx.command_path not in NO_RESULT:
            missing.append(ctx.command_path)
    assert not missing, "give these --json (or say in NO_RESULT why they print no result)"
    assert set(NO_RESULT) <= {ctx.command_path for _command, ctx in tree}


def test_help_texts_list_the_solvers_of_the_backends_registries(rows):
    from ilp_pyramid.backends.solvers import names

    MIP_SOLVERS, SAT_SOLVERS = names("mip"), names("sat", aliases=False)

    solver_rows = [row for row in rows if row.long[:1] == ("--solver",)]
    mip = [row for row in solver_rows if "highs" in row.meaning]
    assert mip and all(" | ".join(MIP_SOLVERS) in row.meaning for row in mip)
    sat = [row for row in solver_rows if "kissat" in row.meaning]
    assert sat and all(" | ".join(SAT_SOLVERS) in row.meaning for row in sat)


def test_the_old_spellings_are_gone(cli, tmp_path):
    # 0.1.0's aliases: the CHANGELOG says what to write instead.
    gone = [("hunt", "6", "--state-dir", str(tmp_path), "--minutes", "1"),
            ("iq", "export", "triangle", str(tmp_path / "m.lp")),
            ("views", "solve", "--seed", "000157"),
            ("solve-cnf", "x.cnf", "--certificate", "y"),
            ("export", "2", "-o", str(tmp_path / "m.lp"), "-f", "counts")]
    for args in gone:
        result = cli(*args)
        assert result.code == 2, (args, result.out, result.err)
        assert result.err.startswith("error: "), args
    assert not (tmp_path / "m.lp").exists()
