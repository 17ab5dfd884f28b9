#!/usr/bin/env python3
"""Prints an apod report with every packed block (report/pack.hpp: base64 of zlib-deflated text,
marked data-packed="deflate-base64") inflated in place, so that a test can read what a reader of
the page sees once every folded table is opened. Usage: unpack_page.py REPORT.html"""
import base64
import re
import sys
import zlib

BLOCK = re.compile(r'<script([^>]*) data-packed="deflate-base64"([^>]*)>(.*?)</script>', re.S)


def unpack(page):
    def inflate(match):
        text = unpack(zlib.decompress(base64.b64decode(match.group(3))).decode("utf-8"))
        if 'type="text/html"' in match.group(1):  # a folded table or group: its markup
            return text
        return f"<script{match.group(1)}{match.group(2)}>{text}</script>"
    return BLOCK.sub(inflate, page)


if __name__ == "__main__":
    sys.stdout.write(unpack(open(sys.argv[1], encoding="utf-8").read()))
