"""Typography of Chinese and French text, as pure functions of a string (not wired into the build here).

- ``join_chinese_soft_breaks(markdown)``: in Chinese, a line break inside a paragraph between two Chinese
  characters is an artefact of the source's line length, not a space: browsers render it as one. It is
  removed, in paragraphs only (code, tables, headings, lists, HTML blocks and quotes are left as written).
- ``space_between_chinese_and_latin(text)``: one rule, one ordinary space (U+0020) between a Han character and
  a Latin letter or a digit, on either side: 「和 H200」, 「（2 或 4 张卡）」, 「8 张卡」.
  Why an ordinary space: the Chinese layout requirements (W3C clreq) ask for about a quarter em between Han
  and Western text; an ordinary space in the usual Chinese fonts is a quarter to a third of an em, where a
  thin space (U+2009) is a fifth or less and varies more between fonts. It is what the site's own Chinese
  strings (macros/output/strings.yml: 「需切分到 4 张卡」, 「单卡 GiB」) and Babel's output already use, so one
  rule holds across hand-written text and generated figures; and the search index splits on it.
  Only letters and digits count as Latin: 「US$4,157/月」, 「100%」 and full-width punctuation are untouched.
- ``held_name(name, lang)``: a model's name, held on one line in Chinese (``one_line``).
- ``french_spaces(text)``: a narrow no-break space (U+202F) before « : ; ? ! », inside « guillemets » and
  before « % », replacing an ordinary or no-break space there, or added where none was typed.
- ``no_break_before_units(text)``, in every language: a no-break space between a number and its unit.
- ``no_break_in_counts(text)``, in every language: "4 × A40" and, in Chinese, "4 张卡" never broken.
- ``typeset_metadata(meta, lang)``: a page's front-matter title and description typeset as its text is.

They leave a page's YAML front matter, code (fenced blocks, `spans`, <code> elements, bare snake_case
identifiers), URLs, HTML tags with their attributes, entities, Jinja calls
({{ }}, {% %}, {# #}) and Markdown link targets as they are, and each is idempotent: f(f(x)) == f(x).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Mapping
from typing import Literal

NNBSP = "\u202f"

# Chinese text: Han ideographs, CJK punctuation and symbols, full-width forms, kana (for quoted Japanese).
_CJK = (
    r"\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3100-\u312f\u31c0-\u31ef\u3400-\u4dbf\u4e00-\u9fff"
    r"\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef"
)
_HAN = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_LATIN_OR_DIGIT = r"A-Za-z0-9\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"

# Spans no rule may touch, in the order they are looked for.
_PROTECTED = re.compile(
    r"\A---[ \t]*\n.*?\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)"  # YAML front matter of a page
    r"|```.*?```|~~~.*?~~~"  # fenced code, and code fences written inline
    r"|`[^`\n]*`"  # code spans
    r"|\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}|\{#[^}]*\}"  # Jinja calls and comments; {#id} heading attributes
    r"|<(script|style|code)\b.*?</\1>"  # scripts (the configurator's JSON data), styles and code, whole
    r"|<[^>\n]*>"  # HTML tags, with their attributes
    r"|&(?:#\d+|#x[0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);"  # entities
    r"|\]\([^)\s]*(?:\s+\"[^\"]*\")?\)"  # Markdown link targets ](url "title")
    r"|<?(?:https?|ftp|mailto):[^\s<>\"')\]]*"  # URLs
    r"|\b(?:www\.)[^\s<>\"')\]]+"
    r"|\b[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+:?",  # identifiers of code written bare (model_impl: gpu, all_reduce_perf)
    re.S,
)


def _protected_spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _PROTECTED.finditer(text)]


def _sub_outside(pattern: re.Pattern[str], replace: str | Callable[[re.Match[str]], str], text: str) -> str:
    """``pattern.sub(replace, text)``, skipping every match that starts or ends inside a protected span."""
    if pattern.search(text) is None:
        return text
    spans = _protected_spans(text)  # sorted, not overlapping
    starts = [start for start, _ in spans]

    def inside(position: int) -> bool:
        index = bisect.bisect_right(starts, position) - 1
        return index >= 0 and position < spans[index][1]

    def guarded(match: re.Match[str]) -> str:
        if inside(match.start()) or (match.end() > match.start() and inside(match.end() - 1)):
            return match.group(0)
        return replace(match) if callable(replace) else match.expand(replace)

    return pattern.sub(guarded, text)


# --- Chinese: soft line breaks ----------------------------------------------------------------------------
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_NOT_PARAGRAPH = re.compile(
    r"^\s*$"  # blank
    r"|^ {0,3}#"  # heading
    r"|^\s*\|"  # table row
    r"|^.*\S\s*\|\s*\S.*\|"  # table row without a leading pipe
    r"|^\s*(?:[-*+]|\d+[.)])\s"  # list item
    r"|^ {0,3}>"  # quote
    r"|^ {0,3}<"  # HTML block
    r"|^ {4,}|^\t"  # indented code, or content of a list, an admonition, a definition
    r"|^ {0,3}(?:!!!|\?\?\?|:)"  # admonition or definition markers
    r"|^ {0,3}(?:-{3,}|\*{3,}|_{3,}|={3,})\s*$"
)  # rules, setext underlines, front-matter fences
# A line's text may end in emphasis marks or a link's target, and start with emphasis marks or a link's "["
_ENDS_CJK = re.compile(f"[{_CJK}](?:[*_]{{1,3}}|\\]\\([^)\\s]*\\))?$")
_STARTS_CJK = re.compile(f"^(?:[*_]{{1,3}}|\\[)?[{_CJK}]")
# Full-width punctuation never takes a space beside it: a break after or before one joins whatever is across it
_FULL_WIDTH_PUNCTUATION = "\u3000-\u303f\uff00-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65"
_ENDS_PUNCTUATION = re.compile(f"[{_FULL_WIDTH_PUNCTUATION}](?:[*_]{{1,3}})?$")
_STARTS_PUNCTUATION = re.compile(f"^(?:[*_]{{1,3}})?[{_FULL_WIDTH_PUNCTUATION}]")


def _joins(previous: str, line: str) -> bool:
    """A soft break between these two lines of Chinese text is no space: two Chinese characters meet, or a
    full-width punctuation mark stands on either side (「，\n100%」, 「GPU\n，」)."""
    return (
        (bool(_ENDS_CJK.search(previous)) and bool(_STARTS_CJK.match(line)))
        or bool(_ENDS_PUNCTUATION.search(previous))
        or bool(_STARTS_PUNCTUATION.match(line))
    )


def join_chinese_soft_breaks(markdown: str) -> str:
    """Join the lines of a paragraph where a line ends and the next starts with a Chinese character, or where
    either side of the break is full-width punctuation. A break between Chinese and Latin text stays: it reads
    as the one space the spacing rule puts there.

    The text of a list item joins across its indented lines the same way. A line ending in two spaces or a
    backslash (a Markdown hard break) is left as written, as are lines in code fences, tables, headings,
    quotes, HTML blocks and indented blocks."""
    lines = markdown.split("\n")
    out: list[str] = []
    fence: str | None = None
    in_list: bool | Literal["blank"] = False  # "blank": a blank line inside a list
    text_previous = False  # the previous line is text a soft break may join (not a hard break)
    for line in lines:
        opening = _FENCE.match(line)
        if fence is not None:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
            out.append(line)
            text_previous = False
            continue
        if opening:
            fence = opening.group(1)
            out.append(line)
            text_previous = False
            continue
        item = bool(re.match(r"^\s*(?:[-*+]|\d+[.)])\s", line))
        if item:
            in_list = True
        elif in_list and not line.strip():
            in_list = "blank"
        elif in_list == "blank" and not line.startswith((" ", "\t")):
            in_list = False
        # the text of a list item goes on on its indented lines: those join like a paragraph's
        continuation = in_list is True and not item and line.startswith((" ", "\t")) and bool(line.strip())
        paragraph = not in_list and not _NOT_PARAGRAPH.match(line)
        if (paragraph or continuation) and text_previous and _joins(out[-1], line.lstrip()):
            out[-1] = out[-1] + line.lstrip()
        else:
            out.append(line)
        text_previous = (paragraph or item or continuation) and not out[-1].endswith(("  ", "\\"))
    return "\n".join(out)


# --- Chinese: Han next to Latin letters or digits ---------------------------------------------------------
_HAN_THEN_LATIN = re.compile(f"(?<=[{_HAN}])(?=[{_LATIN_OR_DIGIT}])")
_LATIN_THEN_HAN = re.compile(f"(?<=[{_LATIN_OR_DIGIT}])(?=[{_HAN}])")


# Spaces typed between two Chinese characters or punctuation marks (often beside a macro call or a link in the
# source): "截至 {{ date }} 的", "参见 [指南](…) 。"
_CJK_SPACE_CJK = re.compile(f"(?<=[{_CJK}]) +(?=[{_CJK}])")
_EMPHASIS_SPACE_CJK = re.compile(f"([{_CJK}](?:\\*{{1,3}}|_{{1,3}})) +(?=[{_CJK}])")
_CJK_SPACE_EMPHASIS = re.compile(f"(?<=[{_CJK}]) +(?=(?:\\*{{1,3}}|_{{1,3}})[{_CJK}])")
_CJK_SPACE_LINK = re.compile(f"(?<=[{_CJK}]) +(?=\\[[{_CJK}])")
_LINK_SPACE_CJK = re.compile(f"([{_CJK}]\\]\\([^)\\s]*\\)) +(?=[{_CJK}])")
# Spaces typed beside full-width punctuation, which carries its own space: "**单卡？** PCIe", "FP8 （可选）"; not
# the space before a heading's attribute list, which Markdown needs: "# 配置工具：FLUX.1（BF16） {#configurator}"
_PUNCTUATION_SPACE = re.compile(f"([{_FULL_WIDTH_PUNCTUATION}](?:\\*{{1,3}}|_{{1,3}})?) +(?=[^\\s{{]|{{[^#.])")
_SPACE_PUNCTUATION = re.compile(f"(?<=[\\w{_CJK}`]) +(?=(?:\\*{{1,3}}|_{{1,3}})?[{_FULL_WIDTH_PUNCTUATION}])")


def space_between_chinese_and_latin(text: str) -> str:
    """One ordinary space between a Han character and a Latin letter or digit that touch, on either side; none
    between two Chinese characters, nor between Chinese text and a link whose text is Chinese, nor beside
    full-width punctuation."""
    text = _sub_outside(_CJK_SPACE_CJK, lambda m: "", text)
    text = _sub_outside(_PUNCTUATION_SPACE, lambda m: m.group(1), text)
    text = _sub_outside(_SPACE_PUNCTUATION, lambda m: "", text)
    text = _sub_outside(_EMPHASIS_SPACE_CJK, lambda m: m.group(1), text)
    text = _sub_outside(_CJK_SPACE_EMPHASIS, lambda m: "", text)
    text = _sub_outside(_CJK_SPACE_LINK, lambda m: "", text)
    text = _sub_outside(_LINK_SPACE_CJK, lambda m: m.group(1), text)
    text = _sub_outside(_HAN_THEN_LATIN, lambda m: " ", text)
    return _sub_outside(_LATIN_THEN_HAN, lambda m: " ", text)


def one_line(name: str) -> str:
    """A name held on one line: its spaces no-break ones (a template writing names alone, a menu's options or the
    list of models, holds them in every language)."""
    return name.replace(" ", NBSP)


def held_name(name: str, lang: str) -> str:
    """A model's name as a page of ``lang`` writes it: in Chinese, which may break a line between any two
    characters, held on one line ("Llama 3.3" once ended a phone's line, "70B" began the next); in English and
    French it breaks at its spaces as other words do."""
    return one_line(name) if lang == "zh" else name


# --- French spaces ----------------------------------------------------------------------------------------
_SPACES = "[ \u00a0\u202f\u2009]"
# What may stand before a high punctuation mark that takes a space: a letter, a digit (not for ":",
# which would touch times and ratios), a per cent sign, a closing mark, Markdown emphasis, or the end of an HTML tag.
_BEFORE = r"[^\W_]|[%»)\]’'\"*_>]"
# After it: a space, the end, a closing mark, another mark, or a Markdown/HTML opening of the next word.
_AFTER = r"(?=$|[\s»)\]’'\"*_<.,…?!])"
_BEFORE_SEMI_QUESTION_BANG = re.compile(f"(?:(?<={_BEFORE})|(?<=\\d)){_SPACES}*([;?!])" + _AFTER)
_BEFORE_COLON = re.compile(f"(?<={_BEFORE}){_SPACES}*(:)" + _AFTER)
_SPACED_BEFORE = re.compile(f"(?<=\\S){_SPACES}+([;:?!])" + _AFTER)
_OPENING_GUILLEMET = re.compile(f"«{_SPACES}*(?=\\S)")
_CLOSING_GUILLEMET = re.compile(f"(?<=\\S){_SPACES}*»")
_PERCENT = re.compile(f"(?<=\\d){_SPACES}*%")


def french_spaces(text: str) -> str:
    """Narrow no-break spaces (U+202F) where French typography puts a space that must not break:
    before ; : ? ! (when they close a word), after « and before », and between a number and %."""
    for pattern in (_SPACED_BEFORE, _BEFORE_SEMI_QUESTION_BANG, _BEFORE_COLON):
        text = _sub_outside(pattern, lambda m: NNBSP + m.group(1), text)
    text = _sub_outside(_OPENING_GUILLEMET, lambda m: "«" + NNBSP, text)
    text = _sub_outside(_CLOSING_GUILLEMET, lambda m: NNBSP + "»", text)
    return _sub_outside(_PERCENT, lambda m: NNBSP + "%", text)


# --- every language: a number and its unit ----------------------------------------------------------------
NBSP = "\u00a0"
_UNITS = (
    "GB/s|Go/s|TB/s|To/s|GB|GiB|Go|Gio|TB|TiB|To|Tio|MB|MiB|Mo|Mio|KiB|Kio|kB|ko|"
    "tok/s|tokens?/s|tokens?/秒|tokens?|TFLOPS|PFLOPS|GHz|MHz|ms|µs|s|W|kW|"
    "min|秒|毫秒|微秒|分钟|小时|张卡|张|个|亿|倍|路|条|层|份|台"
)
# A space between a figure (or a macro's placeholder, "{value}") and the unit after it; a Latin unit ends at a
# non-letter, so "2 streams" or "8 seconds" keep their ordinary space.
_NUMBER_SPACE_UNIT = re.compile(f"(?<=[\\d}}]) (?=(?:{_UNITS})(?![A-Za-z]))")


# In Chinese, the word that qualifies a figure before it: 约 (about), 至少 (at least), 下限 (floor)…
_QUALIFIER_SPACE_NUMBER = re.compile("(?<=约|少|限|多|过|到) (?=[\\d{])")


def no_break_before_units(text: str) -> str:
    """A no-break space (U+00A0) between a number and its unit, and in Chinese between a figure and the word
    that qualifies it: a phone never writes "~46" at the end of a line and "tok/s" at the start of the next
    ("~46 tok/s", "约 1,646 token/秒", "80 GB")."""
    text = _sub_outside(_QUALIFIER_SPACE_NUMBER, lambda m: NBSP, text)
    return _sub_outside(_NUMBER_SPACE_UNIT, lambda m: NBSP, text)


# --- every language: a count held to what it counts ------------------------------------------------------------
WJ = "\u2060"  # WORD JOINER: no line may break on either side of it, and it takes no width
# "4 × A40": a count, the sign and what it counts (a figure or a placeholder before, a word after)
_COUNT_TIMES = re.compile(f"(?<=[\\d}}])[ {NBSP}]×[ {NBSP}](?=\\S)")
# Chinese may break a line between any two characters, in a word too: a figure's measure word and the noun it
# counts are joined ("4 张卡", "2 个节点"), after the no-break space that holds them to the figure
_MEASURED = re.compile(f"(?<=[\\d}}]{NBSP})(?:张|个|台|路|条|层|份)(?:显卡|卡|节点|用户|序列|并发|报价|副本|流)")
# a unit that ends in Chinese after a slash, "token/秒", "US$4,157/月": no break after the slash
_SLASH_HAN = re.compile(f"/(?=[{_HAN}])")


def no_break_in_counts(text: str) -> str:
    """No line break inside a count: "4 × A40" (no-break spaces around the sign), and in Chinese inside a figure's
    measure-word phrase, "4 张卡", or after the slash of a unit, "token/秒" (word joiners). Run after
    ``no_break_before_units``."""
    text = _sub_outside(_COUNT_TIMES, lambda m: f"{NBSP}×{NBSP}", text)
    text = _sub_outside(_SLASH_HAN, lambda m: "/" + WJ, text)
    return _sub_outside(_MEASURED, lambda m: WJ.join(m.group(0)), text)


# A page's metadata a reader sees: its title (the <title>, the header, its label in the navigation, a guide's card)
# and its description (the meta description, a guide's card).
METADATA = ("title", "description")


def typeset_metadata(meta: Mapping[str, object], lang: str) -> dict[str, str]:
    """The title and description of a page's front matter with its language's typography, as its heading and
    text have it: « NVLink ou PCIe : lequel… » with a narrow no-break space before the colon. Only the fields a
    page gives."""
    return {key: typeset(value, lang) for key in METADATA if isinstance(value := meta.get(key), str)}


def typeset(markdown: str, lang: str) -> str:
    """A page's rendered Markdown with its language's typography: Chinese soft line breaks joined and one space
    between Chinese and Latin text; French narrow no-break spaces; in every language, a number held to its
    unit and a count to what it counts."""
    if lang == "zh":
        markdown = space_between_chinese_and_latin(join_chinese_soft_breaks(markdown))
    elif lang == "fr":
        markdown = french_spaces(markdown)
    return no_break_in_counts(no_break_before_units(markdown))
