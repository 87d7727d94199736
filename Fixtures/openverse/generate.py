#!/usr/bin/env python3
"""Regenerate the Openverse fixtures in this folder, and its emulation.json (deterministic; no
network).

    python3 Fixtures/openverse/generate.py

The files follow the format of Openverse's images API, v1 (see shared REFERENCE.md,
"Openverse"):
- search-dogs-<page_size>-<page>.json: GET /v1/images/?q=dogs&page=P&page_size=S for S in 5, 10
  and 20 over the same 45 ranked results (other sizes are served the page of 20, which holds
  more than asked for, as a server may): {"result_count","page_count","page_size","page",
  "results":[...]}; width, height, filetype, filesize and category are sometimes null, tags
  mix human tags (accuracy null) and machine tags.
- feed-<page_size>-<page>.json: the same endpoint without q (the whole catalogue), 30 results.
- search-pwned.json: hostile strings (ANSI/OSC escapes, C1 controls, bidi overrides, zero-width
  characters) and broken records (a traversal id, an upper-case id, a duplicate, a null title,
  file: and javascript: URLs, a URL with a space and an escape in it).
- image-<id>.json: GET /v1/images/<id>/ (the same object as in a search).
- emulation.json: the routes, with Openverse's anonymous limits: page_size above 20 is 401,
  page above 20 is 400, q=ratelimited is 429 with Retry-After and X-RateLimit-* headers.

Image URLs use the real hosts (api.openverse.org for thumbnails, the sources' own hosts for
originals); photos-fixture-server rewrites them to itself when serving.
"""
import hashlib
import json
import os
import uuid
from urllib.parse import quote

HERE = os.path.dirname(os.path.abspath(__file__))
API = "https://api.openverse.org/v1/"

SOURCES = [
    ("flickr", "https://live.staticflickr.com/%d/%d_%s_b.jpg", "https://www.flickr.com/photos/%s/%d"),
    ("wikimedia", "https://upload.wikimedia.org/wikipedia/commons/%s/%s/%s.jpg", "https://commons.wikimedia.org/w/index.php?curid=%d"),
    ("stocksnap", "https://cdn.stocksnap.io/img-thumbs/960w/%s.jpg", "https://stocksnap.io/photo/%s"),
]

CREATORS = [("wgauthier", "59442036@N08"), ("Tambako The Jaguar", "8070463@N03"), ("Ivan Radic", "26344495@N05"),
            ("Dirk Vorderstraße", "dirkvorderstrasse"), (None, None), ("Marco Verch", "30478819@N08"),
            ("Jessica Hayes", None), ("Paul Stevenson", "pss")]

LICENSES = [("by", "2.0"), ("by-sa", "2.0"), ("by-nc", "2.0"), ("cc0", "1.0"), ("pdm", "1.0"), ("by-nc-sa", "2.0"),
            ("by", "4.0"), ("by-nd", "2.0")]

DOG_TITLES = [
    "Dogs at the beach", "Two dogs playing", "Happy dog", "Sleeping dogs", "Dog running in the park",
    "Old dogs", "Puppy", "Dog in the snow", "Dogs waiting", "Sled dogs", "Hot dogs", "Street dogs of Bucharest",
    "Dog portrait", "Dogs on a walk", "Guide dog", "Dogs swimming", "Dog with ball", "Farm dogs",
    "Dog show", "Greyhound", "Beagle", "Border Collie", "Rescue dogs", "Dogs in the rain", "Dog and cat",
    "Labrador", "Dogs of Istanbul", "Husky", "Sheep dogs", "Dog agility", "Dachshund", "Corgi", "Two pugs",
    "Dog sitting", "Dogs at sunset", "Poodle", "Dog in a car", "Working dogs", "Puppies", "Dog on a sofa",
    "Mountain dogs", "Dog park", "Shiba Inu", "Water dog", "Dogs",
]

FEED_TITLES = [
    "Sunset over the bay", "Mountain lake", "Old town square", "Autumn forest", "City lights", "Desert road",
    "Lighthouse", "Waterfall", "Market stall", "Cathedral ceiling", "Foggy morning", "Harbour boats",
    "Wildflowers", "Snowy peaks", "Night sky", "Tulip field", "Rainy street", "Bridge at dusk",
    "Coral reef", "Rice terraces", "Windmills", "Glacier", "Canyon", "Vineyard", "Palm beach",
    "Train station", "Museum hall", "Bookshop", "Fishing village", "Castle ruins",
]


def stable(n, salt):
    return (n * 2654435761 + salt * 40503) % 4294967296


def image_id(key):
    return str(uuid.UUID(bytes=hashlib.md5(key.encode("utf-8")).digest(), version=4))


def license_url(license, version):
    if license == "cc0":
        return "https://creativecommons.org/publicdomain/zero/1.0/"
    if license == "pdm":
        return "https://creativecommons.org/publicdomain/mark/1.0/"
    return "https://creativecommons.org/licenses/%s/%s/" % (license, version)


def license_name(license, version):
    if license == "pdm":
        return "Public Domain Mark " + version
    if license == "cc0":
        return "CC0 " + version
    return "CC %s %s" % (license.upper(), version)


def attribution(title, creator, license, version):
    """Openverse's own wording (api/utils/attribution.py)."""
    public_domain = license in ("cc0", "pdm")
    text = '%s %s %s %s. To view %s, visit %s.' % (
        '"%s"' % title if title else "This work",
        "by %s" % creator if creator else "",
        "is marked with" if public_domain else "is licensed under",
        license_name(license, version),
        "the terms" if public_domain else "a copy of this license",
        license_url(license, version))
    return text.strip().replace("  ", " ")


def record(key, n, title, *, tags=()):
    identifier = image_id(key)
    source, url_form, landing_form = SOURCES[n % len(SOURCES)]
    creator, account = CREATORS[n % len(CREATORS)]
    license, version = LICENSES[n % len(LICENSES)]
    photo = 50000000000 + stable(n, 5) % 4000000000
    secret = "%010x" % stable(n, 6)
    if source == "flickr":
        url = url_form % (65535, photo, secret[:10])
        landing = landing_form % (account or "unknown", photo)
        creator_url = "https://www.flickr.com/photos/%s" % account if account else None
    elif source == "wikimedia":
        digest = hashlib.md5(title.encode("utf-8")).hexdigest()
        url = url_form % (digest[0], digest[:2], quote(title.replace(" ", "_"), safe=""))
        landing = landing_form % (30000000 + n)
        creator_url = "https://commons.wikimedia.org/wiki/User:%s" % creator.replace(" ", "_") if creator else None
    else:
        slug = secret.upper()
        url = url_form % slug
        landing = landing_form % slug
        creator_url = None
    width = None if n % 7 == 3 else 640 + stable(n, 1) % 3000
    height = None if width is None else int(width * (0.6 + (stable(n, 2) % 50) / 100.0))
    human = [{"name": name, "accuracy": None} for name in tags]
    machine = [{"name": "dog", "accuracy": 0.97}, {"name": "mammal", "accuracy": 0.91}] if n % 3 == 0 else []
    return {
        "id": identifier,
        "title": title,
        "indexed_on": "20%02d-%02d-%02dT%02d:%02d:%02dZ" % (19 + n % 5, 1 + n % 12, 1 + n % 28, n % 24, n % 60, (n * 7) % 60),
        "foreign_landing_url": landing,
        "url": url,
        "creator": creator,
        "creator_url": creator_url,
        "license": license,
        "license_version": version,
        "license_url": license_url(license, version),
        "provider": source,
        "source": source,
        "category": None if n % 4 == 1 else "photograph",
        "filesize": None if n % 5 == 2 else 100000 + stable(n, 3) % 4000000,
        "filetype": None if n % 6 == 4 else "jpg",
        "tags": human + machine,
        "attribution": attribution(title, creator, license, version),
        "fields_matched": ["title", "tags.name"],
        "mature": False,
        "height": height,
        "width": width,
        "thumbnail": API + "images/%s/thumb/" % identifier,
        "detail_url": API + "images/%s/" % identifier,
        "related_url": API + "images/%s/related/" % identifier,
        "unstable__sensitivity": [],
    }


def write(name, document):
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as out:
        out.write(json.dumps(document, ensure_ascii=False, indent=1) + "\n")


def pages(prefix, records, sizes=(5, 10, 20)):
    for size in sizes:
        count = (len(records) + size - 1) // size
        for page in range(1, count + 1):
            write("%s-%d-%d.json" % (prefix, size, page), {
                "result_count": len(records),
                "page_count": count,
                "page_size": size,
                "page": page,
                "results": records[(page - 1) * size:page * size],
            })


def hostile():
    ansi = record("pwned-1", 1, "\u001b[31mRED\u001b[0m dog \u001b]0;pwned\u0007 on the lawn")
    bidi = record("pwned-2", 2, "good boy \u202egpj.exe\u202c photo")
    bidi["creator"] = "Mallory\u202e\u200b"
    c1 = record("pwned-3", 3, "C1 \u009b2J clear \u0085 line")
    c1["creator"] = "Eve\u001b[2J"
    c1["url"] = "https://live.staticflickr.com/65535/raw \u001b[2J.jpg"
    no_title = record("pwned-4", 4, "")
    no_title["title"] = None
    no_title["thumbnail"] = "file:///etc/passwd"
    no_title["foreign_landing_url"] = "javascript:alert(1)"
    traversal = record("pwned-5", 5, "Traversal")
    traversal["id"] = "../../etc/passwd"
    upper = record("pwned-6", 6, "Upper-case id")
    upper["id"] = upper["id"].upper()
    duplicate = dict(ansi)
    results = [ansi, bidi, c1, no_title, traversal, upper, duplicate]
    write("search-pwned.json", {"result_count": len(results), "page_count": 1, "page_size": 20, "page": 1,
                                "results": results})
    return results


def emulation(detail_ids):
    allowed = "|".join(str(n) for n in range(1, 21))
    deep = "|".join(str(n) for n in range(21, 101))
    base = "/openverse/v1/images/"
    empty = json.dumps({"result_count": 0, "page_count": 0, "page_size": 20, "page": 1, "results": []})
    routes = [
        {"path": base, "query": {"page_size": "!|" + allowed, "page": deep}, "status": 400,
         "body": json.dumps({"detail": {"page": ["Ensure this value is less than or equal to 20."]}})},
        {"path": base, "query": {"q": "~ratelimited"}, "status": 429,
         "headers": {"retry-after": "42", "x-ratelimit-limit-anon_burst": "20/min", "x-ratelimit-available-anon_burst": "0",
                     "x-ratelimit-limit-anon_sustained": "200/day", "x-ratelimit-available-anon_sustained": "113"},
         "body": json.dumps({"detail": "Request was throttled. Expected available in 42 seconds."})},
        {"path": base, "query": {"q": "~dogs", "page_size": allowed}, "file": "search-dogs-{q:page_size}-{q:page}.json"},
        {"path": base, "query": {"q": "~dogs", "page_size": allowed}, "file": "search-dogs-20-{q:page}.json"},
        {"path": base, "query": {"q": "~pwned", "page_size": allowed}, "file": "search-pwned.json"},
        {"path": base, "query": {"q": "!", "page_size": allowed}, "file": "feed-{q:page_size}-{q:page}.json"},
        {"path": base, "query": {"q": "!", "page_size": allowed}, "file": "feed-20-{q:page}.json"},
        {"path": base, "query": {"page_size": allowed}, "body": empty},
        {"path": base, "query": {"page_size": "*"}, "status": 401,
         "body": json.dumps({"detail": "Ensure this value is less than or equal to 20."})},
        {"path": base + "*/thumb/", "image": "thumb"},
        {"path": base + "*/", "file": "image-{1}.json"},
        {"path": base + "*/", "status": 404, "body": json.dumps({"detail": "Not found."})},
        {"prefix": "/openverse-img/", "image": "thumb"},
    ]
    manifest = {
        "settings": {"PHOTOS_OPENVERSE_API": "{server}/openverse/v1/"},
        "rewrite": {
            "https://api.openverse.org/v1/": "{server}/openverse/v1/",
            "https://live.staticflickr.com": "{server}/openverse-img/flickr",
            "https://upload.wikimedia.org": "{server}/openverse-img/wikimedia",
            "https://cdn.stocksnap.io": "{server}/openverse-img/stocksnap",
        },
        "routes": routes,
        "conformance": {
            "search": "dogs",
            "per_page": 10,
            "feed": True,
            "detail": "openverse:" + detail_ids[0],
            "detail_title": "University of Duhok",
            "unknown": "openverse:00000000-0000-4000-8000-000000000000",
            "invalid_ids": [
                "openverse:abc", "openverse:..", "openverse:" + detail_ids[0][:-1],
                "openverse:" + detail_ids[0] + "0", "openverse:" + detail_ids[0].replace("-", "/", 1),
                "openverse:" + detail_ids[0].replace("-", "", 1) + "-",
            ],
            "hostile": "pwned",
        },
    }
    with open(os.path.join(HERE, "emulation.json"), "w", encoding="utf-8") as out:
        out.write(json.dumps(manifest, indent=2) + "\n")


def main():
    for name in os.listdir(HERE):
        if name.endswith(".json"):
            os.remove(os.path.join(HERE, name))
    dogs = [record("dogs-%d" % n, n, title, tags=["dog", "dogs"] if n % 2 == 0 else ["pet"])
            for n, title in enumerate(DOG_TITLES)]
    pages("search-dogs", dogs)
    feed = [record("feed-%d" % n, 100 + n, title, tags=["landscape"] if n % 2 else []) for n, title in enumerate(FEED_TITLES)]
    pages("feed", feed)
    hostile()

    # A real record's shape (University of Duhok, Flickr, CC BY-SA 2.0), as the detail example.
    duhok = record("duhok", 0, "University of Duhok")
    duhok.update({
        "id": "edd420e4-471c-4f3f-a2ed-bc48ab3879af",
        "foreign_landing_url": "https://www.flickr.com/photos/59442036@N08/5434110551",
        "url": "https://live.staticflickr.com/5212/5434110551_ca8a6ee5dd_b.jpg",
        "creator": "wgauthier",
        "creator_url": "https://www.flickr.com/photos/59442036@N08",
        "license": "by-sa",
        "license_version": "2.0",
        "license_url": license_url("by-sa", "2.0"),
        "attribution": attribution("University of Duhok", "wgauthier", "by-sa", "2.0"),
        "filetype": None,
        "height": 683,
        "width": 1024,
        "tags": [{"name": "university", "accuracy": None}, {"name": "duhok", "accuracy": None},
                 {"name": "kurdistan", "accuracy": None}, {"name": "building", "accuracy": 0.93}],
        "thumbnail": API + "images/edd420e4-471c-4f3f-a2ed-bc48ab3879af/thumb/",
        "detail_url": API + "images/edd420e4-471c-4f3f-a2ed-bc48ab3879af/",
        "related_url": API + "images/edd420e4-471c-4f3f-a2ed-bc48ab3879af/related/",
    })
    detail_ids = [duhok["id"]]
    write("image-%s.json" % duhok["id"], duhok)
    for item in dogs[:10] + feed[:10]:
        write("image-%s.json" % item["id"], item)
    emulation(detail_ids)


if __name__ == "__main__":
    main()
