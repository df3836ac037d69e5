"""Reference pages (`make site`): gen/site.py writes one page per tool from its `introspect`, an
index, tack-mcp's page and one stylesheet. Every page is opened in headless Chromium (over the
DevTools protocol, tests/conformance/browser.py) with a 400-pixel-wide viewport and checked in
the rendered page: no console error and no script, every link resolves to a file of the site
(no external link at all; a #fragment names an element of its page), the flags table as rendered
equals introspect's flags field by field, and nothing overflows horizontally. A page made wrong
on purpose, and one fed hostile help texts, show that the checks can say no and that every text
is escaped.
"""

import importlib.util
import json
import pathlib
import re
import subprocess
import urllib.parse

import pytest

import browser
import tack

SITE_PY = tack.REPO / "gen" / "site.py"
PY = "/usr/bin/python3"
WIDTH = 400

# What the page shows, read from the rendered DOM.
PROBE = r"""(() => {
  const text = (el, sel) => { const x = el.querySelector(sel); return x ? x.textContent : null; };
  const all = (el, sel) => [...el.querySelectorAll(sel)].map(x => x.textContent);
  const refs = [];
  const attrs = ['href', 'src', 'srcset', 'action', 'formaction', 'poster', 'data', 'background',
                 'cite', 'manifest', 'ping', 'xlink:href'];
  for (const el of document.querySelectorAll('*')) {
    for (const attr of attrs) {
      if (!el.hasAttribute(attr)) continue;
      const raw = el.getAttribute(attr);
      let url = null;
      try { url = new URL(raw, document.baseURI).href; } catch (e) {}
      refs.push({tag: el.tagName.toLowerCase(), attr, raw, url});
    }
    if (el.hasAttribute('style')) refs.push({tag: el.tagName.toLowerCase(), attr: 'style',
                                             raw: el.getAttribute('style'), url: null});
  }
  const table = document.getElementById('flags-table');
  const flags = table ? [...table.tBodies[0].rows].map(tr => ({
    name: text(tr, '.flag-name'), short: text(tr, '.flag-short'),
    value_name: text(tr, '.flag-value'), kind: text(tr, '.flag-kind'),
    choices: all(tr, '.flag-choice'), floor: text(tr, '.flag-floor'),
    ceiling: text(tr, '.flag-ceiling'), role: text(tr, '.flag-role'),
    default: text(tr, '.flag-default'), help: text(tr, '.flag-help'),
    excludes: all(tr, '.flag-exclude'),
    shown: tr.getBoundingClientRect().height > 0 && getComputedStyle(tr).visibility === 'visible',
  })) : null;
  const de = document.documentElement;
  const wide = [...document.body.querySelectorAll('*')]
    .filter(x => x.getBoundingClientRect().right > de.clientWidth + 0.5)
    .slice(0, 5).map(x => x.tagName.toLowerCase() + (x.className ? '.' + x.className : '')
                         + ' ' + Math.round(x.getBoundingClientRect().right) + 'px');
  return {refs, flags, summary: text(document, '.summary'), ids: [...document.querySelectorAll('[id]')].map(x => x.id),
          scripts: document.scripts.length,
          handlers: [...document.querySelectorAll('*')].flatMap(x => [...x.attributes])
                      .filter(a => a.name.startsWith('on')).length,
          styled: getComputedStyle(document.querySelector('nav') || document.body).display,
          inner: innerWidth, client: de.clientWidth, scroll: de.scrollWidth,
          body_scroll: document.body.scrollWidth, wide};
})()"""


def _site_module():
    spec = importlib.util.spec_from_file_location("tack_site", SITE_PY)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def visit_all(directory: pathlib.Path) -> dict:
    with browser.Browser(WIDTH) as b:
        return {p.name: b.visit(p.as_uri(), PROBE) for p in sorted(directory.glob("*.html"))}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    r = subprocess.run([PY, str(SITE_PY), "--bin", str(tack.BIN), "--out", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, f"gen/site.py failed: {r.stderr}"
    return out, visit_all(out)


def expected_pages() -> list[str]:
    pages = [f"{t}.html" for t in tack.expected_tools()] + ["index.html"]
    if (tack.BIN / "tack-mcp").exists():
        pages.append("tack-mcp.html")
    return sorted(pages)


# --- the checks, as functions that return what is wrong ----------------------------------------

def link_problems(directory: pathlib.Path, seen: dict, page: str) -> list[str]:
    value, _ = seen[page]
    root = directory.resolve()
    problems = []
    for ref in value["refs"]:
        where = f"<{ref['tag']} {ref['attr']}={ref['raw']!r}>"
        if ref["attr"] == "style":
            if "url(" in ref["raw"]:
                problems.append(f"{where}: an inline style that loads something")
            continue
        url = ref["url"]
        if not url or not url.startswith("file:"):
            problems.append(f"{where}: not a file of the site")
            continue
        parts = urllib.parse.urlsplit(url)
        target = pathlib.Path(urllib.parse.unquote(parts.path)).resolve()
        if not target.is_relative_to(root):
            problems.append(f"{where}: outside the site")
        elif not target.is_file():
            problems.append(f"{where}: {target.name} does not exist")
        elif parts.fragment:
            ids = seen.get(target.name, ({"ids": []}, None))[0]["ids"]
            if urllib.parse.unquote(parts.fragment) not in ids:
                problems.append(f"{where}: no element #{parts.fragment} in {target.name}")
    return problems


def overflow_problems(value: dict) -> list[str]:
    problems = []
    if value["inner"] != WIDTH:
        problems.append(f"the viewport is {value['inner']} pixels wide, not {WIDTH}")
    if value["scroll"] > value["client"] or value["body_scroll"] > value["client"]:
        problems.append(f"scrollWidth {value['scroll']} (body {value['body_scroll']}) exceeds "
                        f"the {value['client']}-pixel client width; widest: {value['wide']}")
    return problems


def rendered_flags_expected(info: dict) -> list[dict]:
    """introspect's flags as the rendered table must show them."""
    def s(x):
        return None if x is None else str(x)
    return [{"name": f"--{f['name']}", "short": f"-{f['short']}" if f["short"] else None,
             "value_name": f["value_name"], "kind": f["kind"], "choices": list(f["choices"]),
             "floor": s(f["floor"]), "ceiling": s(f["ceiling"]), "role": f["role"],
             "default": s(f["default"]), "help": f["help"],
             "excludes": [f"--{x}" for x in f["excludes"]], "shown": True}
            for f in info["flags"]]


# --- the site -----------------------------------------------------------------------------------

def test_one_page_per_tool_an_index_and_one_stylesheet(site):
    out, seen = site
    assert sorted(seen) == expected_pages()
    assert sorted(p.name for p in out.iterdir()) == sorted(expected_pages() + ["style.css"])
    css = (out / "style.css").read_text(encoding="utf-8")
    assert "url(" not in css and "@import" not in css, "the stylesheet loads something"


def test_every_page_is_reachable_from_the_index(site):
    out, seen = site
    linked = {pathlib.Path(urllib.parse.urlsplit(r["url"]).path).name
              for r in seen["index.html"][0]["refs"] if r["attr"] == "href" and r["url"]}
    assert set(expected_pages()) - {"index.html"} <= linked


@pytest.mark.parametrize("page", expected_pages())
def test_no_console_error_and_no_script(site, page):
    value, errors = site[1][page]
    assert errors == [], f"{page}: {errors}"
    assert value["scripts"] == 0 and value["handlers"] == 0, f"{page} carries script"
    assert value["styled"] == "flex", f"{page}: the stylesheet was not applied"


@pytest.mark.parametrize("page", expected_pages())
def test_every_link_resolves(site, page):
    out, seen = site
    ids = seen[page][0]["ids"]
    assert len(ids) == len(set(ids)), f"{page} repeats an id"
    assert seen[page][0]["refs"], f"{page} has no link at all (not even its stylesheet)"
    assert link_problems(out, seen, page) == []


@pytest.mark.parametrize("tool", tack.expected_tools())
def test_flags_table_equals_introspect(site, tool):
    value, _ = site[1][f"{tool}.html"]
    assert value["flags"] == rendered_flags_expected(tack.introspect(tool))


@pytest.mark.parametrize("page", expected_pages())
def test_no_horizontal_overflow_at_400_pixels(site, page):
    assert overflow_problems(site[1][page][0]) == []


# --- the checks can say no ----------------------------------------------------------------------

BAD = """<!DOCTYPE html><html><head><link rel="stylesheet" href="missing.css"></head><body>
<nav><a href="https://example.org/">out</a> <a href="gone.html">gone</a>
<a href="#nowhere">nowhere</a> <a href="bad.html#here">here</a></nav>
<div id="here" style="width:600px">wide</div>
<script>console.error("boom")</script></body></html>
"""


def test_the_checks_say_no_to_a_wrong_page(tmp_path):
    (tmp_path / "bad.html").write_text(BAD, encoding="utf-8")
    seen = visit_all(tmp_path)
    value, errors = seen["bad.html"]
    assert any("missing.css" in x for x in errors) and any("boom" in x for x in errors), errors
    assert value["scripts"] == 1 and value["styled"] != "flex"
    problems = link_problems(tmp_path, seen, "bad.html")
    assert len(problems) == 4, problems
    assert any("missing.css does not exist" in p for p in problems)
    assert any("https://example.org/" in p and "not a file of the site" in p for p in problems)
    assert any("gone.html does not exist" in p for p in problems)
    assert any("no element #nowhere in bad.html" in p for p in problems)
    assert overflow_problems(value) and value["scroll"] >= 600


HOSTILE = '<b>bold</b> & "quoted" \'single\' </td></tr></table><script>console.error(1)</script>'


def test_hostile_texts_are_escaped(tmp_path):
    """Every text of the table reaches the page as text: help, defaults, choices, examples."""
    site_mod = _site_module()
    info = json.loads(json.dumps(tack.introspect("peek")))
    info["summary"] = info["usage"] = HOSTILE
    for i, f in enumerate(info["flags"]):
        f["help"] = f"{HOSTILE} {i}"
        if f["default"] is not None:
            f["default"] = f"<{f['default']}&>"
        if f["value_name"]:
            f["value_name"] = f"<{f['value_name']}\">"
    info["flags"][0]["choices"] = ["<a href='x'>", "&amp;", '"']
    for part in ("operands", "rules", "exit_codes"):
        for row in info[part]:
            for key in ("help", "when", "meaning"):
                if key in row:
                    row[key] = HOSTILE
    info["examples"] = [{"args": HOSTILE, "shows": HOSTILE}]
    info["authority"]["files"] = HOSTILE
    found = site_mod.scan_evidence(tack.REPO / "tests" / "conformance", ["peek"])
    (tmp_path / "peek.html").write_text(
        site_mod.tool_page(info, found["peek"], ["peek"], HOSTILE), encoding="utf-8")
    (tmp_path / "index.html").write_text(site_mod.index_page([info], False, ["peek"], HOSTILE),
                                         encoding="utf-8")
    (tmp_path / "style.css").write_text(site_mod.STYLE, encoding="utf-8")
    seen = visit_all(tmp_path)
    for page, (value, errors) in seen.items():
        assert errors == [], f"{page}: {errors}"
        assert value["scripts"] == 0 and value["handlers"] == 0, page
        assert link_problems(tmp_path, seen, page) == [], page
        assert overflow_problems(value) == [], page
    assert seen["peek.html"][0]["flags"] == rendered_flags_expected(info)
    assert seen["peek.html"][0]["summary"] == HOSTILE
    assert seen["index.html"][0]["summary"] == HOSTILE


def test_evidence_is_derived_from_the_test_files():
    """The scan finds what the gate modules say: M4 fuzzes every tool by parametrization, M2
    names peek, and a tool's own module counts for the gates its text names."""
    site_mod = _site_module()
    tools = tack.expected_tools()
    found = site_mod.scan_evidence(tack.REPO / "tests" / "conformance", tools)
    for t in tools:
        assert any(f.endswith("test_m4_fuzz.py") and "every tool" in how
                   for f, how in found[t][4]), t
    assert any(f.endswith("test_m2_determinism.py") for f, _ in found["peek"][2])
    for t in tools:
        own = [p for p in (tack.REPO / "tests" / "conformance").glob(f"test_{t}*.py")
               if site_mod._owner(p.name, tools) == t]
        named = {int(g) for p in own for g in re.findall(r"\bM([1-9])\b", p.read_text())}
        for g in named:
            assert any("own module" in how for _, how in found[t][g]), (t, g)
