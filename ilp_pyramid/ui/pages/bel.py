"""The Bel's Pyramid page: its HTML is static/bel.html; its JSON routes are below."""

from __future__ import annotations

from ilp_pyramid.ui.pages import Page

PAGE = Page(slug="bel", title="Bel's Pyramid", html="bel.html", routes=[])
