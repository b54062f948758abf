"""HTML as readable text for ``web_fetch``, with the standard library's ``html.parser``.

::

    html_to_text(html, base_url=None) -> str

    <title>                 "Title: ..." as the first line
    <h1>..<h6>              "# ...", "## ...", ... on a line of their own
    <p>, <div>, <table> ... blocks, separated by one blank line
    <li>                    "- ..." (indented two spaces per nested list)
    <a href>                "text (url)", the url made absolute against ``base_url``;
                            links to the same page ("#...") and "javascript:" keep the text only
    <pre>                   fenced with ``` and kept verbatim (a language-* class names it)
    <code> outside <pre>    `...`
    <tr>, <td>              one line per row, cells joined by " | "
    <img alt>               "[image: alt]"
    script, style, nav, noscript, template, svg, iframe, head (but its title)
                            dropped with everything inside

Everywhere outside ``<pre>`` runs of whitespace collapse to one space, and no more than one
blank line separates blocks. Malformed markup never raises: unclosed tags end at the next
block, stray end tags are ignored.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urljoin

_DROPPED = frozenset(
    {"script", "style", "nav", "noscript", "template", "svg", "iframe", "object", "select"}
)
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_BLOCKS = frozenset(
    {
        "address",
        "article",
        "aside",
        "blockquote",
        "body",
        "details",
        "dialog",
        "div",
        "dl",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "header",
        "hgroup",
        "main",
        "p",
        "section",
        "summary",
        "table",
    }
)
_LINES = frozenset({"dd", "dt", "tr", "caption", "option", "legend"})
_LISTS = frozenset({"ul", "ol", "menu"})
_SPACE = re.compile(r"\s+")
_LANGUAGE = re.compile(r"(?:^|\s)(?:language|lang)-([\w+#.-]+)")


class _Converter(HTMLParser):
    """Collects finished lines in ``lines``; ``words`` is the line being built, written out
    (with ``prefix`` in front) at the next line or block boundary."""

    def __init__(self, base_url: str | None) -> None:
        super().__init__(convert_charrefs=True)
        self.base_url = base_url
        self.lines: list[str] = []
        self.words: list[str] = []
        self.prefix = ""
        self.title: list[str] | None = None
        self.title_text = ""
        self.dropped = 0
        self.lists = 0
        self.pre = 0
        self.pre_text: list[str] = []
        self.pre_language = ""
        self.code = 0
        self.links: list[tuple[str | None, int, int]] = []
        self.flushes = 0
        self.cells = 0

    # --- writing ------------------------------------------------------------------------

    def _add(self, text: str) -> None:
        if not text:
            return
        if (not self.words or self.words[-1].endswith(" ")) and text.startswith(" "):
            text = text[1:]
        if text:
            self.words.append(text)

    def _newline(self) -> None:
        line = "".join(self.words).strip()
        self.words = []
        if line:
            self.lines.append(self.prefix + line)
            self.prefix = ""
            self.flushes += 1
        self.cells = 0

    def _blank(self) -> None:
        self._newline()
        if self.lists:
            return
        if self.lines and self.lines[-1] != "":
            self.lines.append("")

    # --- parser callbacks ---------------------------------------------------------------

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _DROPPED:
            self.dropped += 1
            return
        if self.dropped:
            return
        if tag == "title":
            self.title = [] if not self.title_text else None
            return
        if self.title is not None:
            self._end_title()
        if self.pre:
            self._start_inside_pre(tag, attrs)
            return
        if tag in _HEADINGS:
            self._blank()
            self.prefix = "#" * _HEADINGS[tag] + " "
        elif tag in _LISTS:
            self._blank()
            self.lists += 1
        elif tag == "li":
            self._newline()
            self.prefix = "  " * max(self.lists - 1, 0) + "- "
        elif tag == "pre":
            self._blank()
            self.pre = 1
            self.pre_text = []
            self.pre_language = _language(attrs)
        elif tag in _BLOCKS:
            self._blank()
        elif tag in _LINES:
            self._newline()
        elif tag in {"td", "th"}:
            if self.cells:
                self._add(" | ")
            self.cells += 1
        elif tag == "br":
            self._newline()
        elif tag == "hr":
            self._blank()
            self.lines.append("---")
            self._blank()
        elif tag == "a":
            self.links.append((_attr(attrs, "href"), len(self.words), self.flushes))
        elif tag == "code":
            self.code += 1
            if self.code == 1:
                self.words.append("`")
        elif tag == "img":
            alt = _SPACE.sub(" ", _attr(attrs, "alt") or "").strip()
            if alt:
                self._add(f"[image: {alt}]")

    def _start_inside_pre(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "pre":
            self.pre += 1
        elif tag == "br":
            self.pre_text.append("\n")
        elif tag == "code" and not "".join(self.pre_text).strip() and not self.pre_language:
            self.pre_language = _language(attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag in _DROPPED:
            self.dropped = max(self.dropped - 1, 0)
            return
        if self.dropped:
            return
        if tag == "title":
            self._end_title()
            return
        if self.pre:
            if tag == "pre":
                self.pre -= 1
                if not self.pre:
                    self._end_pre()
            return
        if tag in _HEADINGS:
            self._blank()
        elif tag in _LISTS:
            self.lists = max(self.lists - 1, 0)
            self._blank()
        elif tag == "li" or tag in _LINES:
            self._newline()
        elif tag in _BLOCKS:
            self._blank()
        elif tag == "a" and self.links:
            self._end_link(*self.links.pop())
        elif tag == "code" and self.code:
            self.code -= 1
            if not self.code:
                if self.words and self.words[-1] == "`":
                    self.words.pop()
                else:
                    self.words[-1:] = [self.words[-1].rstrip()] if self.words else []
                    self.words.append("`")

    def _end_title(self) -> None:
        if self.title is not None and not self.title_text:
            self.title_text = _SPACE.sub(" ", "".join(self.title)).strip()
        self.title = None

    def _end_link(self, href: str | None, start: int, flushes: int) -> None:
        if not href:
            return
        href = href.strip()
        if href.startswith("#") or href.lower().startswith("javascript:"):
            return
        url = urljoin(self.base_url, href) if self.base_url else href
        if flushes == self.flushes:
            text = "".join(self.words[start:]).strip()
            if not text:
                self._add(url)
                return
            if text == url:
                return
        if self.words:
            self.words[-1] = self.words[-1].rstrip()
        self._add(f" ({url})")

    def _end_pre(self) -> None:
        body = "".join(self.pre_text)
        body = body[1:] if body.startswith("\n") else body
        body = body.rstrip()
        self.lines.append("```" + self.pre_language)
        self.lines.extend(body.split("\n") if body else [])
        self.lines.append("```")
        self.pre_text = []
        self.pre_language = ""
        self._blank()

    def handle_data(self, data: str) -> None:
        if self.dropped:
            return
        if self.title is not None:
            self.title.append(data)
        elif self.pre:
            self.pre_text.append(data.replace("\r\n", "\n"))
        else:
            self._add(_SPACE.sub(" ", data))

    def text(self) -> str:
        self._newline()
        if self.pre:
            self._end_pre()
        self._end_title()
        lines = self.lines
        if self.title_text:
            lines[:0] = [f"Title: {self.title_text}", ""]
        while lines and not lines[-1]:
            lines.pop()
        return "\n".join(lines)


def _attr(attrs: list[tuple[str, str | None]], name: str) -> str | None:
    for key, value in attrs:
        if key == name:
            return value
    return None


def _language(attrs: list[tuple[str, str | None]]) -> str:
    match = _LANGUAGE.search(_attr(attrs, "class") or "")
    return match.group(1) if match else ""


def html_to_text(html: str, base_url: str | None = None) -> str:
    """Readable text of ``html`` (see the module docstring for what becomes what).
    Relative link targets are made absolute against ``base_url`` when it is given."""
    converter = _Converter(base_url)
    converter.feed(html)
    converter.close()
    return converter.text()


__all__ = ["html_to_text"]
