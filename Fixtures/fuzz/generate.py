#!/usr/bin/env python3
"""Regenerate the fuzz seeds in this folder from the other fixtures: a handful per target.

    pip install pillow && python3 Fixtures/fuzz/generate.py

Each folder is the corpus of one target of `make fuzz` (see Fuzz/). Crash reproducers are
added next to the seeds by hand, named crash-<what>; this script never removes them.
"""
import io
import json
import os
import struct

from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.dirname(HERE)


def write(target, name, data):
    folder = os.path.join(HERE, target)
    os.makedirs(folder, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def fixture(*parts):
    with open(os.path.join(FIXTURES, *parts), "rb") as f:
        return f.read()


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def flickr():
    search = json.loads(fixture("flickr", "search-dogs-page3.json"))
    search["photos"]["photo"] = search["photos"]["photo"][:2]
    write("provider-flickr", "search", compact(search))
    recent = json.loads(fixture("flickr", "recent-page1.json"))
    recent["photos"]["photo"] = recent["photos"]["photo"][:1]
    write("provider-flickr", "recent-callback", "jsonFlickrApi(" + compact(recent) + ");")
    # The detail asks getInfo and getSizes; both get the one body, so it carries both.
    info = json.loads(fixture("flickr", "getInfo-53624890009.json"))
    sizes = json.loads(fixture("flickr", "getSizes-53624890009.json"))
    sizes["sizes"]["size"] = sizes["sizes"]["size"][:4]
    write("provider-flickr", "detail", compact({"photo": info["photo"], "sizes": sizes["sizes"], "stat": "ok"}))
    write("provider-flickr", "error", fixture("flickr", "error-100.json"))


def placeholder():
    records = json.loads(fixture("placeholder", "photos.json"))
    write("provider-placeholder", "list", compact(records[:3]))
    mixed = [records[16], None, {"id": "x"}, {"id": 18, "url": "javascript:alert(1)"}, 7]
    write("provider-placeholder", "list-mixed", compact(mixed))
    write("provider-placeholder", "detail", compact(records[16]))
    write("provider-placeholder", "empty", "{}")


def terminal():
    # The first byte is the width (minus 8).
    write("terminal", "hostile", bytes([40]) + "Cute\x1b]52;c;ZXZpbA==\x07 dog\x1b[2J\r\nnext\u202eevil\u2066".encode())
    write("terminal", "wide", bytes([20]) + "東京の犬 🐕‍🦺 🇯🇵 café e\u0301 \u200d\ufe0f".encode())
    write("terminal", "controls", bytes([5]) + bytes(range(0, 0x20)) + b"\x7f\xc2\x85\xc2\x9b text \xff\xfe")


def image_bytes(image, format, **options):
    out = io.BytesIO()
    image.save(out, format, **options)
    return out.getvalue()


def images():
    rgb = Image.new("RGB", (12, 8))
    rgb.putdata([((x * 20) % 256, (y * 30) % 256, 128) for y in range(8) for x in range(12)])
    rgba = rgb.convert("RGBA")
    rgba.putalpha(Image.new("L", (12, 8), 200))
    write("image", "baseline.jpg", image_bytes(rgb, "JPEG", quality=50))
    write("image", "progressive.jpg", image_bytes(rgb, "JPEG", quality=50, progressive=True))
    write("image", "grey.jpg", image_bytes(rgb.convert("L"), "JPEG", quality=50))
    write("image", "rgba.png", image_bytes(rgba, "PNG"))
    write("image", "palette-interlaced.png", image_bytes(rgb.convert("P"), "PNG", interlace=1))
    write("image", "lossy.webp", image_bytes(rgb, "WEBP", quality=50))
    write("image", "lossless-alpha.webp", image_bytes(rgba, "WEBP", lossless=True))


def config():
    write("config", "example", """# photos config
[defaults]
provider = "flickr"

[flickr]
api_key = "0123456789abcdef"

[cache]
max_size_mb = 500
listing_ttl_seconds = 600
recent_searches = 10
""")
    write("config", "values", """top = 'literal'
[network]
max_image_mb = 1_000
strict = true
path = "a \\"quoted\\" \\\\ path\\t#not a comment" # a comment
[ bad-table_2 ]
""")


# The cache target reads: six listing columns (total, has_more, etag, last_modified,
# fetched_at, stored_at), a photo count (mod 6), then 13 columns per photo (provider, raw, title, owner,
# thumbnail_url, image_url, width, height, page_url, taken_at, uploaded_at, tags, updated_at).
# Each column is a tag byte (mod 6: NULL, integer, real, text, blob, an edge number) and its value.
NULL = b"\x00"


def integer(value):
    return b"\x01" + struct.pack(">q", value)


def real(value):
    return b"\x02" + struct.pack(">d", value)


def text(value):
    data = value.encode()
    return b"\x03" + bytes([len(data)]) + data


def blob(data):
    return b"\x04" + bytes([len(data)]) + data


def edge(index):
    return b"\x05" + bytes([index])


def photo(raw, title, tags):
    return b"".join([
        text("stub"), text(raw), text(title), text("owner"), text("https://example.com/t.jpg"),
        text("https://example.com/i.jpg"), integer(640), integer(480), text("https://example.com/p"),
        real(1_600_000_000.5), real(1_650_000_000), text(tags), real(1_700_000_000),
    ])


def cache():
    listing = integer(28) + integer(1) + text('"etag"') + text("Mon, 01 Jan 2024 00:00:00 GMT") + real(1_699_999_900) + real(1_699_999_000)
    write("cache", "fresh", listing + b"\x02" + photo("1", "a dog", '["dog","beach"]') + photo("2", "", "[]"))
    stale = NULL + text("yes") + NULL + blob(b"\x00\xff") + real(1_000_000_000) + text("1000")
    odd = b"".join([text("stub"), integer(3), blob(b"title"), NULL, integer(7), real(1.5), real(1e300), text("wide"),
                    NULL, edge(0), edge(1), text("[1,"), NULL])
    write("cache", "stale-odd", stale + b"\x01" + odd)
    write("cache", "old", integer(0) + integer(0) + NULL + NULL + edge(0) + edge(1) + b"\x00")


if __name__ == "__main__":
    flickr()
    placeholder()
    terminal()
    images()
    config()
    cache()
