"""The IQ Pyramid / Kanoodle page: its HTML is static/iq.html; its JSON routes are below."""

from __future__ import annotations

from ilp_pyramid.ui.pages import Page

PAGE = Page(slug="iq", title="IQ Pyramid / Kanoodle", html="iq.html", routes=[])
