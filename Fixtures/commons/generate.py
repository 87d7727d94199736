#!/usr/bin/env python3
"""Regenerate the Wikimedia Commons fixtures in this folder (deterministic; no network).

    python3 Fixtures/commons/generate.py

The files follow the format of MediaWiki Action API answers with format=json&formatversion=2
(see shared REFERENCE.md, "Wikimedia Commons"):
- search-dogs-<offset>.json: generator=search (File namespace, filetype:bitmap) with
  prop=imageinfo. query.pages is an array in PAGE-ID order, each page carrying its search
  `index` (offset + position, from 1); continue is {"gsroffset": N, "continue": "gsroffset||"}
  until the last page. url/thumburl carry Wikimedia's tracking query string; extmetadata values
  are {"value","source","hidden"} objects holding HTML.
- search-pwned-0.json: hostile strings (ANSI/OSC escapes, C1 controls, bidi overrides,
  zero-width characters, a <script> in Artist, entities that decode to ESC) and broken records
  (a non-numeric pageid, a duplicated page, a video, a page outside the File namespace, a
  file: thumbnail and a javascript: description URL).
- feed-list-<n>.json: list=categorymembers of the featured pictures category (cmsort=timestamp,
  cmdir=desc), continue {"cmcontinue": "<timestamp>|<pageid>", "continue": "-||"}.
- feed-info-<n>.json: pageids=<that page's ids>&prop=imageinfo, again in page-id order.
- page-<pageid>.json: pageids=<id> with the full extmetadata, as a detail asks for it.

Image URLs use the real host upload.wikimedia.org; photos-fixture-server rewrites it to its own
/commons-upload/ when serving (see emulation.json), so these files stay authentic.
"""
import hashlib
import json
import os
from urllib.parse import quote

HERE = os.path.dirname(os.path.abspath(__file__))
UPLOAD = "https://upload.wikimedia.org/wikipedia/commons"
TRACKING = "?utm_source=commons.wikimedia.org&utm_campaign=imageinfo&utm_content=original"
THUMB = 330

USERS = [
    ("Ermell", '<a href="//commons.wikimedia.org/wiki/User:Ermell" title="User:Ermell">Ermell</a>'),
    ("Diego Delso", '<bdi><a href="https://www.wikidata.org/wiki/Q28147777" class="extiw" title="d:Q28147777">Diego Delso</a>\n</bdi>'),
    ("Tuxyso", '<a href="//commons.wikimedia.org/wiki/User:Tuxyso" title="User:Tuxyso">Tuxyso</a>'),
    ("Jacek Halicki", '<a href="//commons.wikimedia.org/wiki/User:Jacek_Halicki" title="User:Jacek Halicki">Jacek Halicki</a>'),
    ("Famberhorst", '<span class="fn value"><a href="//commons.wikimedia.org/wiki/User:Famberhorst" title="User:Famberhorst">Famberhorst</a></span>'),
    ("Charles J. Sharp", 'Photo by <a href="//commons.wikimedia.org/wiki/User:Charlesjsharp" title="User:Charlesjsharp">Charles J. Sharp</a> &amp; <a href="//commons.wikimedia.org/wiki/User:Charlesjsharp/Sharp_Photography">Sharp Photography</a>'),
    ("Kallerna", "Kallerna"),
    ("Unknown author", '<span lang="en">Unknown author</span><br /><small>(photograph c.&nbsp;1910)</small>'),
]

LICENSES = [
    ("CC BY-SA 4.0", "https://creativecommons.org/licenses/by-sa/4.0", "cc-by-sa-4.0", "Creative Commons Attribution-Share Alike 4.0"),
    ("CC BY 4.0", "https://creativecommons.org/licenses/by/4.0", "cc-by-4.0", "Creative Commons Attribution 4.0"),
    ("CC0", "http://creativecommons.org/publicdomain/zero/1.0/deed.en", "cc0", "Creative Commons Zero, Public Domain Dedication"),
    ("CC BY-SA 3.0", "https://creativecommons.org/licenses/by-sa/3.0", "cc-by-sa-3.0", "Creative Commons Attribution-Share Alike 3.0"),
    ("Public domain", None, "pd", "Public domain"),
]

DOG_NAMES = [
    "Golden Retriever Dukedestiny01 drvd", "Dog on the beach at Playa de la Concha", "Beagle puppy portrait",
    "Border Collie herding sheep in Wales", "Siberian Husky blue eyes", "Dachshund (long-haired) in the garden",
    "Pug 01", "Labrador Retriever swimming (2019)", "Greyhound racing, Shelbourne Park", "Bernese Mountain Dog 02",
    "Shiba Inu, Tokyo, 2018", "Corgi at the dog show, Crufts 2016", "Dogs playing in snow", "Jack Russell Terrier jumping",
    "Poodle standard white", "Boxer dog head", "Whippet running at full speed", "Old English Sheepdog",
    "Sled dogs in Svalbard", "Dalmatian (dog) lying", "Afghan hound portrait", "Samoyed in winter",
    "Newfoundland dog swimming", "Basset Hound ears", "Street dogs in Istanbul",
]

FEATURED_NAMES = [
    "Aurora borealis over Lofoten, Norway", "Milky Way over Paranal", "Matterhorn from Riffelsee at sunrise",
    "Common kingfisher (Alcedo atthis) with fish", "Sagrada Familia nave roof detail", "Lake Bled from Mala Osojnica",
    "Bee-eater pair (Merops apiaster)", "Hallstatt at dusk", "Grand Prismatic Spring, aerial",
    "Monarch butterfly on milkweed", "Tower Bridge at night, London", "Red fox (Vulpes vulpes) in snow",
    "Moraine Lake at sunrise", "Hagia Sophia interior, 2022", "Snow leopard (Panthera uncia)",
    "Antelope Canyon light beam", "Cherry blossoms at Hirosaki Castle", "Dunes of Sossusvlei",
    "Interior of Stephansdom, Vienna", "Puffin with sand eels, Skomer", "Namib desert oryx",
    "Reine, Lofoten, in winter", "Sunflower (Helianthus annuus) head", "Lisbon tram 28 at dusk",
    "Blue dragon nudibranch",
]


def file_url(name):
    """upload.wikimedia.org paths hash the file name (MD5 of the underscored name) and encode
    every reserved character (rawurlencode); wiki page URLs leave ;@$!*(),/~: as they are."""
    underscored = name.replace(" ", "_")
    digest = hashlib.md5(underscored.encode("utf-8")).hexdigest()
    return digest, quote(underscored, safe="")


def page_url(name):
    return "https://commons.wikimedia.org/wiki/File:" + quote(name.replace(" ", "_"), safe=";@$!*(),/~:")


def stable(n, salt):
    return (n * 2654435761 + salt * 40503) % 4294967296


def meta(value, source="commons-desc-page", hidden=False):
    entry = {"value": value, "source": source}
    if hidden:
        entry["hidden"] = ""
    return entry


def imageinfo(pageid, filename, n, *, full=False, mime="image/jpeg", artist=None, user=None):
    digest, encoded = file_url(filename)
    width = 2400 + stable(n, 1) % 3600
    height = int(width * (0.56 + (stable(n, 2) % 60) / 100.0))
    thumb_height = round(height * THUMB / width)
    user_name, artist_html = USERS[n % len(USERS)]
    license_short, license_url, license_code, usage = LICENSES[n % len(LICENSES)]
    year = 2008 + n % 16
    day = "%04d-%02d-%02d" % (year, 1 + n % 12, 1 + n % 28)
    extmetadata = {
        "ObjectName": meta(filename.rsplit(".", 1)[0], "mediawiki-metadata"),
        "DateTimeOriginal": meta(day + " %02d:%02d:%02d" % (8 + n % 10, n % 60, (n * 7) % 60)),
        "Artist": meta(artist if artist is not None else artist_html),
        "LicenseShortName": meta(license_short, hidden=True),
    }
    if license_url:
        extmetadata["LicenseUrl"] = meta(license_url, hidden=True)
    if full:
        extmetadata = {
            "DateTime": meta(day + " 18:04:11", "mediawiki-metadata", hidden=True),
            "ObjectName": extmetadata["ObjectName"],
            "CommonsMetadataExtension": meta(1.2, "extension", hidden=True),
            "Categories": meta("Featured pictures on Wikimedia Commons|Quality images|Dogs", "commons-categories", hidden=True),
            "Assessments": meta("poty|featured", "commons-categories", hidden=True),
            "ImageDescription": meta(
                '<div class="description en" lang="en" style="display:inline;"><span class="language en" title="English">'
                "<b>English: </b></span> %s, photographed on a winter morning &amp; published under a free licence. "
                '<a href="https://en.wikipedia.org/wiki/Main_Page" class="extiw">See also Wikipedia</a>.</div>' % filename.rsplit(".", 1)[0]),
            "DateTimeOriginal": extmetadata["DateTimeOriginal"],
            "Credit": meta('<span class="int-own-work" lang="en">Own work</span>', hidden=True),
            "Artist": extmetadata["Artist"],
            "LicenseShortName": extmetadata["LicenseShortName"],
            "UsageTerms": meta(usage, hidden=True),
            "AttributionRequired": meta("false" if license_code in ("cc0", "pd") else "true", hidden=True),
            "Copyrighted": meta("False" if license_code in ("cc0", "pd") else "True", hidden=True),
            "Restrictions": meta("", hidden=True),
            "License": meta(license_code, "commons-templates", hidden=True),
        }
        if license_url:
            extmetadata["LicenseUrl"] = meta(license_url, hidden=True)
    info = {
        "timestamp": "%04d-%02d-%02dT%02d:%02d:%02dZ" % (year, 1 + n % 12, 1 + n % 28, 18, n % 60, (n * 3) % 60),
        "user": user if user is not None else user_name,
        "size": 900000 + stable(n, 3) % 9000000,
        "width": width,
        "height": height,
        "thumburl": "%s/thumb/%s/%s/%s/%dpx-%s" % (UPLOAD, digest[0], digest[:2], encoded, THUMB, encoded),
        "thumbwidth": THUMB,
        "thumbheight": thumb_height,
        "responsiveUrls": {
            "1.5": "%s/thumb/%s/%s/%s/%dpx-%s" % (UPLOAD, digest[0], digest[:2], encoded, 495, encoded),
            "2": "%s/thumb/%s/%s/%s/%dpx-%s" % (UPLOAD, digest[0], digest[:2], encoded, 660, encoded),
        },
        "url": "%s/%s/%s/%s%s" % (UPLOAD, digest[0], digest[:2], encoded, TRACKING),
        "descriptionurl": page_url(filename),
        "descriptionshorturl": "https://commons.wikimedia.org/w/index.php?curid=%d" % pageid,
        "extmetadata": extmetadata,
        "mime": mime,
    }
    return info


def page(pageid, filename, n, *, index=None, full=False, **info_options):
    record = {"pageid": pageid, "ns": 6, "title": "File:" + filename}
    if index is not None:
        record["index"] = index
    record["imagerepository"] = "local"
    record["imageinfo"] = [imageinfo(pageid, filename, n, full=full, **info_options)]
    return record


def dog_pageid(n):
    return 40000000 + stable(n * 7 + 3, 11) % 110000000


def featured_pageid(n):
    return 20000000 + stable(n, 13) % 120000000


def write(name, document):
    text = json.dumps(document, ensure_ascii=False, indent=1)
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as out:
        out.write(text + "\n")


def search_pages():
    per_page = 10
    pages = []
    for offset in range(0, len(DOG_NAMES), per_page):
        records = []
        for position, name in enumerate(DOG_NAMES[offset:offset + per_page]):
            n = offset + position
            records.append(page(dog_pageid(n), name + ".jpg", n, index=offset + position + 1))
        records.sort(key=lambda record: record["pageid"])
        # The point of `index`: page-id order is not the search order.
        assert [r["index"] for r in records] != sorted(r["index"] for r in records)
        document = {"batchcomplete": True}
        if offset + per_page < len(DOG_NAMES):
            document["continue"] = {"gsroffset": offset + per_page, "continue": "gsroffset||"}
        document["query"] = {"pages": records}
        write("search-dogs-%d.json" % offset, document)
        pages.append(records)
    return pages


def hostile_search():
    ansi = page(90000001, "\u001b[31mRED\u001b[0m dog \u001b]0;pwned\u0007 on the lawn.jpg", 1, index=1,
                artist='<a href="//commons.wikimedia.org/wiki/User:Mallory">Mallory\u202e</a>')
    bidi = page(90000002, "good boy \u202egpj.exe\u202c photo \u009b2J\u200b.jpg", 2, index=2,
                artist="<script>document.title='\u001b]0;x\u0007'</script>Eve &#x1b;[2J&#8238;evil")
    zero_width = page(90000003, "zero\u200bwidth\u2060joined \ufeffdog.png", 3, index=3, mime="image/png",
                      artist="Trudy\u0085\u009d", user="Trudy\u200f")
    bad_urls = page(90000004, "Dog with broken links.jpg", 4, index=4)
    bad_urls["imageinfo"][0]["thumburl"] = "file:///etc/passwd"
    bad_urls["imageinfo"][0]["descriptionurl"] = "javascript:alert(1)"
    traversal = page(90000005, "Traversal.jpg", 5, index=5)
    traversal["pageid"] = "../../etc/passwd"
    duplicate = page(90000001, "\u001b[31mRED\u001b[0m dog \u001b]0;pwned\u0007 on the lawn.jpg", 1, index=6)
    video = page(90000007, "Dog video.webm", 7, index=7, mime="video/webm")
    not_a_file = {"pageid": 90000008, "ns": 0, "title": "Dog", "index": 8}
    no_info = {"pageid": 90000009, "ns": 6, "title": "File:Deleted dog.jpg", "index": 9, "missing": True,
               "known": True, "imagerepository": ""}
    records = [ansi, bidi, zero_width, bad_urls, traversal, duplicate, video, not_a_file, no_info]
    write("search-pwned-0.json", {"batchcomplete": True, "query": {"pages": records}})


def feed():
    per_page = 10
    first_ids = []
    chunks = [FEATURED_NAMES[i:i + per_page] for i in range(0, len(FEATURED_NAMES), per_page)]
    for number, names in enumerate(chunks, start=1):
        start = (number - 1) * per_page
        members = []
        for position, name in enumerate(names):
            n = start + position
            members.append({"pageid": featured_pageid(n), "ns": 6, "title": "File:%s.jpg" % name,
                            "timestamp": "2024-%02d-%02dT%02d:00:00Z" % (12 - n // 5, 28 - n % 5 * 5, 20 - n % 10)})
        document = {"batchcomplete": True}
        if number < len(chunks):
            following = featured_pageid(start + per_page)
            document["continue"] = {"cmcontinue": "20240%d01120000|%d" % (9 - number, following), "continue": "-||"}
        document["query"] = {"categorymembers": members}
        write("feed-list-%d.json" % number, document)
        infos = [page(featured_pageid(start + p), "%s.jpg" % name, 100 + start + p) for p, name in enumerate(names)]
        infos.sort(key=lambda record: record["pageid"])
        assert [r["pageid"] for r in infos] != [m["pageid"] for m in members], "list order differs from page-id order"
        write("feed-info-%d.json" % number, {"batchcomplete": True, "query": {"pages": infos}})
        first_ids.append(featured_pageid(start))
    return first_ids


def details(dog_pages):
    write("page-22459639.json", {"batchcomplete": True, "query": {"pages": [
        page(22459639, "Port Townsend, WA - First Presbyterian Church 04.jpg", 5, full=True)]}})
    for record in dog_pages[0]:
        n = DOG_NAMES.index(record["title"][len("File:"):-len(".jpg")])
        detail = page(record["pageid"], record["title"][len("File:"):], n, full=True)
        write("page-%d.json" % record["pageid"], {"batchcomplete": True, "query": {"pages": [detail]}})


def main():
    for name in os.listdir(HERE):
        if name.endswith(".json") and name != "emulation.json":
            os.remove(os.path.join(HERE, name))
    dog_pages = search_pages()
    hostile_search()
    first_ids = feed()
    details(dog_pages)
    print("feed pages start with", first_ids)
    print("feed tokens:", [json.load(open(os.path.join(HERE, "feed-list-%d.json" % n)))["continue"]["cmcontinue"]
                           for n in (1, 2)])


if __name__ == "__main__":
    main()
