#!/usr/bin/env python3
"""Parses a report as XML (a real parser: it rejects anything not well-formed) and prints
what the report tests check, as JSON: the h1 text, every element's text, how many script
elements, SVG charts and SVG tooltips there are, and every reference to something outside the
file (src, href, url(...), @import).

usage: check_xhtml.py REPORT.html
Exit 1 with the parser's message when the file is not well-formed.
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

XHTML = "{http://www.w3.org/1999/xhtml}"
SVG = "{http://www.w3.org/2000/svg}"


def main():
    try:
        root = ET.parse(sys.argv[1]).getroot()
    except ET.ParseError as e:
        print(f"not well-formed: {e}")
        sys.exit(1)
    external = []
    for el in root.iter():
        for name, value in el.attrib.items():
            local = name.split("}")[-1]
            if local in ("src", "href", "action", "data", "srcset", "background"):
                external.append(f"{el.tag} {local}={value}")
            if "url(" in value:
                external.append(f"{el.tag} {local}={value}")
    for style in root.iter(XHTML + "style"):
        css = style.text or ""
        external += re.findall(r"url\([^)]*\)|@import[^;]*", css)
    h1 = root.find(f".//{XHTML}h1")
    svgs = list(root.iter(SVG + "svg"))
    report = {
        "root": root.tag,
        "h1": "".join(h1.itertext()) if h1 is not None else None,
        "title": "".join(root.find(f"./{XHTML}head/{XHTML}title").itertext()),
        "scripts": len(list(root.iter(XHTML + "script"))) + len(list(root.iter(SVG + "script"))),
        "svgs": len(svgs),
        "figures": len(list(root.iter(XHTML + "figure"))),
        "svg_tooltips": sum(1 for svg in svgs for _ in svg.iter(SVG + "title")),
        "svg_texts": sum(1 for svg in svgs for _ in svg.iter(SVG + "text")),
        "sections": [s.get("id") for s in root.iter(XHTML + "section")],
        "external": external,
        "text": "\n".join(t.strip() for t in root.find(XHTML + "body").itertext() if t.strip()),
    }
    print(json.dumps(report))


if __name__ == "__main__":
    main()
