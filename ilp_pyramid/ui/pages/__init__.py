"""The workbench's pages: one module per page, each with `PAGE` (its slug, title, HTML file
under `static/` and its JSON routes under /api/<slug>/). Adding a page is one module and one
line here."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field

from starlette.routing import BaseRoute

PAGES = ("iq", "sudoku-cube", "views", "bel")


@dataclass
class Page:
    slug: str
    title: str
    html: str  # a file in ilp_pyramid/ui/static/
    routes: list[BaseRoute] = field(default_factory=list)
    blurb: str = ""  # one line for the index


def load(slug: str) -> Page:
    return importlib.import_module(f"ilp_pyramid.ui.pages.{slug.replace('-', '_')}").PAGE
