"""The Views page: its HTML is static/views.html; its JSON routes are below."""

from __future__ import annotations

from ilp_pyramid.ui.pages import Page

PAGE = Page(slug="views", title="Views", html="views.html", routes=[])
