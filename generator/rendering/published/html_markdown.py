"""The HTML of a page's raw blocks said in Markdown, for the Markdown published beside each page and
`llms-full.txt`: a language model reads a table as a Markdown table, not as its tags.

The HTML is the generator's own (its templates, and Python-Markdown's for a formula), so the reading
is not a browser's: it knows the elements the templates write and says the rest by their text. What
a reader of the Markdown needs stays: headings, paragraphs, lists, tables, links (made absolute from
the page's address), emphasis, code, a chart's text alternative; what only a browser needs goes:
classes and data attributes, form controls, scripts. Text is unescaped from HTML and escaped again
for Markdown with a backslash before each character that could start markup, so a contributor's text
stays text.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from urllib.parse import urljoin


_TOKEN = re.compile(
    r"<!--.*?-->"  # a comment
    r"|<(/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s=/>]+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s\"'=<>`]+))?)*)\s*/?>"  # a tag
    r"|[^<]+|<", re.S)
_ATTR = re.compile(r"""([^\s=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?""")
_VOID = frozenset({"br", "hr", "img", "input", "meta", "link", "source", "wbr", "col", "area", "base", "embed", "param", "track"})
# Elements no reader of the text needs, with everything inside them.
_DROPPED = frozenset({"script", "style", "template", "svg", "select", "option", "button", "input", "textarea", "output",
                      "iframe", "noscript", "picture", "canvas", "head", "math"})
_BLOCKS = frozenset({"p", "div", "section", "article", "aside", "header", "footer", "nav", "main", "figure", "figcaption",
                     "details", "summary", "blockquote", "ul", "ol", "li", "dl", "dt", "dd", "table", "thead", "tbody",
                     "tfoot", "tr", "td", "th", "caption", "pre", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "form",
                     "fieldset", "legend", "label", "center"})
_WHITE = re.compile(r"\s+")
_UNESCAPED_BAR = re.compile(r"(?<!\\)\|")
_ABSOLUTE = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*:")
_BLOCK_START = re.compile(r"^(?:([-+=])|(\d+)([.)]))(?=\s|$)")


@dataclass
class _Node:
    tag: str
    attrs: dict[str, str] = field(default_factory=dict)
    children: list[_Node | str] = field(default_factory=list)


def _parse(source: str) -> tuple[_Node, list[tuple[int, int]]]:
    """The tree, and where in the source each element at the top begins and ends."""
    root = _Node("#root")
    stack = [root]
    spans: list[tuple[int, int]] = []
    for m in _TOKEN.finditer(source):
        if len(stack) == 1 and spans and spans[-1][1] < 0:
            spans[-1] = (spans[-1][0], m.start())
        token = m[0]
        if token.startswith("<!--"):
            continue
        if m[2] is None:  # text, or a '<' that opens no tag
            stack[-1].children.append(token)
            continue
        tag = m[2].lower()
        if m[1]:  # an end tag closes the nearest open element of its name, and any left open inside it
            for i in range(len(stack) - 1, 0, -1):
                if stack[i].tag == tag:
                    del stack[i:]
                    break
            continue
        attrs = {a[1].lower(): html.unescape(a[2] if a[2] is not None else a[3] if a[3] is not None else a[4] or "")
                 for a in _ATTR.finditer(m[3] or "")}
        node = _Node(tag, attrs)
        stack[-1].children.append(node)
        if len(stack) == 1:
            spans.append((m.start(), -1))
        if tag not in _VOID and not token.endswith("/>"):
            stack.append(node)
    if spans and spans[-1][1] < 0:
        spans[-1] = (spans[-1][0], len(source))
    return root, spans


# Characters that could start Markdown or HTML, escaped by a backslash (CommonMark allows one before
# any ASCII punctuation). `published.md_text` escapes with the same set.
_ESCAPES = str.maketrans({c: "\\" + c for c in "\\`*_[]<>#!|&~"})


def escape(text: str) -> str:
    """Text with a backslash before each character that could start Markdown or HTML."""
    return text.translate(_ESCAPES)


def _code(text: str) -> str:
    """Inline code, fenced by more backticks than it holds in a row."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


class _Writer:
    def __init__(self, base: str):
        self.base = base  # the address links are resolved against

    def url(self, href: str) -> str:
        if not self.base:
            return href
        if not _ABSOLUTE.match(href):
            href = urljoin(self.base, href)
        return href.replace(" ", "%20").replace("(", "%28").replace(")", "%29")

    # Inline content: one line of Markdown.

    def inline(self, nodes: list[_Node | str], code: bool = False) -> str:
        out = []
        for n in nodes:
            if isinstance(n, str):
                text = html.unescape(n) if "&" in n else n
                # A line end in HTML's text is a space; a line break is <br>.
                out.append(text if code else text.replace("\n", " ").translate(_ESCAPES))
            else:
                out.append(self._inline_node(n, code))
        return "".join(out)

    def _inline_node(self, n: _Node, code: bool) -> str:
        tag = n.tag
        if tag in _DROPPED:
            return ""
        if tag == "br":
            return "\n"
        if code:
            return self.inline(n.children, code=True)
        if tag == "code":
            return _code(_WHITE.sub(" ", self.inline(n.children, code=True)))
        if tag == "img":
            alt = n.attrs.get("alt", "")
            return f"![{escape(alt)}]({self.url(n.attrs['src'])})" if n.attrs.get("src") else escape(alt)
        inner = self.inline(n.children)
        if tag == "a":
            text = _WHITE.sub(" ", inner).strip()
            href = n.attrs.get("href")
            if not text or not href:
                return inner
            return f"[{text}]({self.url(href)})"
        if tag in ("strong", "b", "em", "i"):
            text = _WHITE.sub(" ", inner)
            core = text.strip()
            if not core:
                return text
            mark = "**" if tag in ("strong", "b") else "*"
            lead, trail = text[: len(text) - len(text.lstrip())], text[len(text.rstrip()):]
            return f"{lead}{mark}{core}{mark}{trail}"
        if tag in ("sup", "sub"):
            return f" ({inner.strip()})" if inner.strip() and n.attrs.get("class", "").find("guide-cite") >= 0 else inner
        if tag in _BLOCKS:  # a block inside a line (a list in a table cell): its text, on the line
            return " " + " ".join(self.blocks(n.children)) + " "
        return inner

    @staticmethod
    def _line(text: str) -> str:
        """Inline Markdown as one paragraph: white space as HTML reads it, line breaks kept, and a
        character that would open a block at the start of a line escaped."""
        lines = [" ".join(part.split()) for part in text.split("\n")]
        return "  \n".join(_BLOCK_START.sub(_escaped_start, line) for line in lines if line)

    # Blocks: a list of Markdown blocks, each to be set apart by a blank line.

    def blocks(self, nodes: list[_Node | str]) -> list[str]:
        out: list[str] = []
        run: list[_Node | str] = []

        def flush() -> None:
            text = self._line(self.inline(run))
            if text:
                out.append(text)
            run.clear()

        for n in nodes:
            if isinstance(n, _Node) and n.tag in _BLOCKS | _DROPPED | {"img"} and not (n.tag == "img" and run):
                flush()
                out += self._block(n)
            else:
                run.append(n)
        flush()
        return out

    def _block(self, n: _Node) -> list[str]:
        tag = n.tag
        if tag in _DROPPED:
            return []
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            text = _WHITE.sub(" ", self.inline(n.children)).strip()
            return [f"{'#' * int(tag[1])} {text}"] if text else []
        if tag == "hr":
            return ["---"]
        if tag == "img":
            return [self._inline_node(n, False)]
        if tag == "pre":
            text = self.inline(n.children, code=True).strip("\n")
            longest = max((len(run) for run in re.findall(r"`{3,}", text)), default=2)
            fence = "`" * (longest + 1)
            return [f"{fence}\n{text}\n{fence}"]
        if tag in ("ul", "ol"):
            return [self._list(n)]
        if tag == "table":
            return [self._table(n)]
        if tag == "dl":
            return [self._definitions(n)]
        if tag in ("summary", "legend", "caption"):
            text = self._line(self.inline(n.children))
            return [f"**{text}**"] if text else []
        if n.attrs.get("role") == "img" and n.attrs.get("aria-label"):
            return [escape(_WHITE.sub(" ", n.attrs["aria-label"]).strip())]
        if tag == "figure":
            return self._figure(n)
        if tag == "blockquote":
            return ["\n".join(f"> {line}" if line else ">" for line in "\n\n".join(self.blocks(n.children)).split("\n"))]
        return self.blocks(n.children)

    def _figure(self, n: _Node) -> list[str]:
        """A chart's text alternative once: its caption is left out where the alternative already says it."""
        label = next((c.attrs["aria-label"] for c in _walk(n) if c.attrs.get("role") == "img" and c.attrs.get("aria-label")), "")
        out = []
        for c in n.children:
            if isinstance(c, _Node) and c.tag == "figcaption" and label:
                caption = _WHITE.sub(" ", html.unescape(_text(c))).strip()
                if caption and caption in _WHITE.sub(" ", label):
                    continue
            out += self.blocks([c])
        return out

    def _list(self, n: _Node) -> str:
        ordered = n.tag == "ol"
        items = [c for c in n.children if isinstance(c, _Node) and c.tag == "li"]
        lines = []
        for i, item in enumerate(items, start=int(n.attrs.get("start", "1") or 1) if ordered else 1):
            mark = f"{i}. " if ordered else "- "
            body = "\n\n".join(self.blocks(item.children)) or ""
            pad = " " * len(mark)
            first, *rest = body.split("\n") if body else [""]
            lines.append(mark + first)
            lines += [pad + line if line else "" for line in rest]
        return "\n".join(lines)

    def _definitions(self, n: _Node) -> str:
        lines = []
        for c in n.children:
            if isinstance(c, _Node) and c.tag == "dt":
                lines.append(f"- **{self._line(self.inline(c.children))}**")
            elif isinstance(c, _Node) and c.tag == "dd":
                lines.append("  " + " ".join(self.blocks(c.children)))
        return "\n".join(lines)

    def _cell(self, c: _Node) -> str:
        text = " ".join(self.blocks(c.children)).replace("\n", " ")
        # Text has its bars escaped already; a code span's are escaped here, as a table needs.
        return _UNESCAPED_BAR.sub(r"\\|", _WHITE.sub(" ", text)).strip()

    def _table(self, n: _Node) -> str:
        rows: list[tuple[bool, list[str]]] = []  # (in the head, cells)
        for part in n.children:
            if not isinstance(part, _Node):
                continue
            trs = [part] if part.tag == "tr" else [c for c in part.children if isinstance(c, _Node) and c.tag == "tr"]
            for tr in trs:
                cells = [self._cell(c) for c in tr.children if isinstance(c, _Node) and c.tag in ("td", "th")]
                rows.append((part.tag == "thead", cells))
        if not rows:
            return ""
        width = max(len(cells) for _, cells in rows)
        head = [cells for in_head, cells in rows if in_head][:1]
        body = [cells for in_head, cells in rows if not in_head]
        header = head[0] if head else [""] * width

        def line(cells: list[str]) -> str:
            return "| " + " | ".join(cells + [""] * (width - len(cells))) + " |"

        return "\n".join([line(header), "|" + "---|" * width, *(line(cells) for cells in body)])


def _escaped_start(m: re.Match[str]) -> str:
    """'- x' as '\\- x', '2. x' as '2\\. x': a backslash escapes punctuation only."""
    return "\\" + m[1] if m[1] else m[2] + "\\" + m[3]


def _walk(n: _Node):
    for c in n.children:
        if isinstance(c, _Node):
            yield c
            yield from _walk(c)


def _text(n: _Node) -> str:
    return "".join(c if isinstance(c, str) else _text(c) for c in n.children if isinstance(c, str) or c.tag not in _DROPPED)


def to_markdown(source: str, base: str = "", memo: dict[tuple[str, str], list[str]] | None = None) -> str:
    """HTML as Markdown blocks set apart by blank lines; base: the address its links are relative to
    (an absolute URL makes every link absolute), or "" to leave them as written. memo: what each
    block-level element at the top said last time, by its HTML, read and refilled here (the embed
    gallery is one block of thousands of charts' sections, most of them as they were at the last save)."""
    root, spans = _parse(source)
    writer = _Writer(base)
    if memo is None:
        return "\n\n".join(b for b in writer.blocks(root.children) if b.strip())
    said: list[str] = []
    run: list[_Node | str] = []
    known = dict(memo)
    memo.clear()
    top = iter(spans)
    for n in root.children:
        if isinstance(n, str) or n.tag not in _BLOCKS:
            if isinstance(n, _Node):
                next(top)
            run.append(n)
            continue
        said += writer.blocks(run)
        run = []
        start, end = next(top)
        key = (source[start:end], base)
        memo[key] = known[key] if key in known else writer.blocks([n])
        said += memo[key]
    said += writer.blocks(run)
    return "\n\n".join(b for b in said if b.strip())


def inline_markdown(source: str, base: str = "") -> str:
    """HTML inside a line of Markdown (a `<span>`, a link) as Markdown within the line."""
    return _Writer(base).inline(_parse(source)[0].children)
