#!/usr/bin/env python3
"""Breaks the first chart of a rendered apod report in place, for expect_chart_failures.sh:
its spec (the <script type="application/json" data-chart-for=...> block) becomes a line of the
measured rows whose colour is the median (one series per point), whose opacity is a nominal field
(a Vega-Lite warning) and whose y title is cut at 40 px, beside two words drawn at one place. Exits 1 when the page has no chart."""
import base64
import html
import json
import re
import sys
import zlib

path = sys.argv[1]
page = open(path, encoding="utf-8").read()
# A packed block (report/pack.hpp, the page `apod report` writes) is base64 of zlib-deflated JSON.
block = re.compile(r'(<script type="application/json"( data-packed="deflate-base64")? '
                   r'data-chart-for="[^"]*">)(.*?)(</script>)', re.S)
match = block.search(page)
if not match:
    sys.exit(f"break_chart.py: no chart in {path}")
packed = match.group(2) is not None
body = match.group(3)
spec = json.loads(zlib.decompress(base64.b64decode(body)) if packed else body)
# The rows of the first layer that holds data: the measured points, whatever the chart's shape.
def first_values(node):
    if isinstance(node, dict):
        data = node.get("data")
        if isinstance(data, dict) and isinstance(data.get("values"), list) and data["values"]:
            return data["values"]
        for value in node.values():
            found = first_values(value)
            if found:
                return found
    elif isinstance(node, list):
        for value in node:
            found = first_values(value)
            if found:
                return found
    return None
values = first_values(spec)
if not values:
    sys.exit(f"break_chart.py: the first chart of {path} holds no data")
numeric = [k for k, v in values[0].items() if isinstance(v, (int, float)) and not isinstance(v, bool)]
x = numeric[0]
line = {
    "mark": "line",
    "encoding": {
        "x": {"field": x, "type": "quantitative"},
        "y": {"field": x, "type": "quantitative",
              "title": "a y axis title far too long for the forty pixels it is given",
              "axis": {"titleLimit": 40}},
        "color": {"field": "broken_series", "type": "nominal", "title": "every point its own series"},
        "opacity": {"field": "broken_series", "type": "nominal"},
    },
}
# Two words drawn at one place (page_checks.js's label_overlaps must name them).
words = {
    "data": {"values": [{"word": "planted label"}, {"word": "planted label too"}]},
    "mark": {"type": "text", "fontSize": 12},
    "encoding": {"x": {"value": 60}, "y": {"value": 40}, "text": {"field": "word"}},
}
broken = {
    "$schema": spec.get("$schema", "https://vega.github.io/schema/vega-lite/v5.json"),
    "data": {"values": [dict(row, broken_series=f"point {i}") for i, row in enumerate(values)]
             + [dict(values[0], broken_series=f"extra {i}") for i in range(12)]},
    "layer": [line, words],
}
text = json.dumps(broken).replace("</", "<\\/")
if packed:
    text = base64.b64encode(zlib.compress(text.encode(), 9)).decode()
page = page[:match.start(3)] + text + page[match.end(3):]
open(path, "w", encoding="utf-8").write(page)
