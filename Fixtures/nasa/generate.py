#!/usr/bin/env python3
"""Regenerate the NASA Image and Video Library fixtures in this folder, and its emulation.json
(deterministic; no network).

    python3 Fixtures/nasa/generate.py

The files follow the format of images-api.nasa.gov answers (see shared REFERENCE.md, "NASA
Image and Video Library"):
- search-dogs-<page_size>-<page>.json and feed-<page_size>-<page>.json (q=apollo, what photos
  searches without --query): GET /search?q=...&media_type=image&page=P&page_size=S, for S in
  5, 10 and 20 (other sizes are served the page of 20). {"collection":{"version","href",
  "items":[{"href","data":[{...}],"links":[...]}],"metadata":{"total_hits"},"links":[next,
  prev]}}. Optional fields (photographer, location, secondary_creator, description_508) come
  and go, key order varies, descriptions hold HTML; newer items carry alternate and canonical
  links with width and height.
- search-pwned.json: hostile strings (ANSI/OSC escapes, C1 controls, bidi overrides, zero-width
  characters, a <script> in a description) and broken records (a traversal id, a video, a
  duplicate, a file: preview, a plain-http preview on another host).
- item-<nasa_id>.json: GET /search?nasa_id=<id>; asset-<nasa_id>.json: GET /asset/<id>, whose
  hrefs are plain http as in real answers. One id holds spaces.

Image URLs use the real host images-assets.nasa.gov; photos-fixture-server rewrites it (http
and https) to its own /nasa-assets/ when serving.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
API = "http://images-api.nasa.gov"
ASSETS = "https://images-assets.nasa.gov"
SIZES = (5, 10, 20)

CENTERS = ["KSC", "JSC", "AFRC", "ARC", "GSFC", "HQ", "MSFC", "LaRC"]
PHOTOGRAPHERS = ["Kim Shiflett", None, "Bill Ingalls", None, "Aubrey Gemignani", "Joel Kowsky", None, "Cory Huston"]

DOG_TITLES = [
    "Search and rescue dogs at Kennedy", "K-9 unit training at the Space Center", "Laika, first dog in orbit",
    "Therapy dogs visit Johnson Space Center", "Working dogs on the launch pad perimeter", "Belka and Strelka model",
    "Sniffer dogs check cargo", "Dogs at the NASA family day", "Airport dogs at Armstrong", "Guide dog at Ames",
    "Bomb dogs sweep the VIP site", "Dogs of the Goddard security team", "Astronaut and service dog",
    "Canine crew member retires", "Dog show at the visitor complex", "Security dog handler portrait",
    "Dogs and drones demonstration", "A dog at mission control open house", "Police dogs at Michoud",
    "Sled dogs in Antarctica science camp", "Rescue dog exercise, Stennis", "Dogs in the recovery training",
    "Facility dog at Marshall", "Dog in a space suit costume", "Canine team certification",
]

APOLLO_TITLES = [
    "Apollo 11 launch", "Earthrise over the lunar horizon", "Apollo 11 crew portrait", "Lunar Module Eagle",
    "Saturn V on the pad", "Apollo 17 Blue Marble", "Splashdown of Apollo 13", "Apollo 15 lunar rover",
    "Mission control celebrates", "Apollo 16 Descartes highlands", "Command Module Columbia",
    "Apollo 12 Surveyor 3 visit", "Apollo 8 crew in training", "Footprint in lunar soil", "Apollo 14 golf shot",
    "Launch Control Center firing room", "Apollo 9 spacewalk", "Apollo 10 Snoopy", "Recovery ship USS Hornet",
    "Apollo 7 launch", "Saturn V first stage", "Lunar sample return", "Apollo 1 crew memorial",
    "Apollo 11 plaque", "Apollo-Soyuz handshake", "Astronaut training in the desert", "Apollo 17 Taurus-Littrow",
    "Vehicle Assembly Building", "Apollo 11 quarantine", "Apollo 16 Lunar Module Orion",
]

SPACED_ID = "Apollo 11 Mission Crew"
DETAIL_ID = "as11-40-5874"


def stable(n, salt):
    return (n * 2654435761 + salt * 40503) % 4294967296


def nasa_id(prefix, n):
    forms = [lambda: "KSC-%04d%02d%02d-PH-%s%02d" % (2000 + n % 24, 1 + n % 12, 1 + n % 28, prefix, n),
             lambda: "jsc20%02de%06d" % (n % 24, stable(n, 4) % 1000000),
             lambda: "GSFC_20%02d%02d%02d_Archive_e%06d" % (10 + n % 14, 1 + n % 12, 1 + n % 28, stable(n, 5) % 1000000),
             lambda: "NHQ20%02d%02d%02d%04d" % (10 + n % 14, 1 + n % 12, 1 + n % 28, n),
             lambda: "AFRC20%02d-%04d-%02d" % (16 + n % 8, stable(n, 6) % 10000, n % 100)]
    return forms[n % len(forms)]()


def links(identifier, n, *, newer):
    root = "%s/image/%s/%s" % (ASSETS, identifier.replace(" ", "%20"), identifier.replace(" ", "%20"))
    if not newer:
        return [{"href": root + "~thumb.jpg", "rel": "preview", "render": "image"}]
    width = 3000 + stable(n, 1) % 3000
    height = int(width * (0.6 + (stable(n, 2) % 40) / 100.0))

    def scaled(edge):
        return {"width": edge, "height": int(height * edge / width)}
    return [
        dict({"href": root + "~thumb.jpg", "rel": "preview", "render": "image"}, **scaled(100)),
        dict({"href": root + "~small.jpg", "rel": "alternate", "render": "image"}, **scaled(640)),
        dict({"href": root + "~medium.jpg", "rel": "alternate", "render": "image"}, **scaled(1280)),
        dict({"href": root + "~large.jpg", "rel": "alternate", "render": "image"}, **scaled(1920)),
        {"href": root + "~orig.jpg", "rel": "canonical", "render": "image", "width": width, "height": height,
         "size": 1000000 + stable(n, 3) % 9000000},
    ]


def item(identifier, n, title, *, keywords=(), description=None):
    data = {}
    # Key order varies between records, as in real answers.
    fields = [
        ("center", CENTERS[n % len(CENTERS)]),
        ("title", title),
        ("nasa_id", identifier),
        ("date_created", "%04d-%02d-%02dT00:00:00Z" % (1965 + n % 58, 1 + n % 12, 1 + n % 28)),
        ("keywords", list(keywords)),
        ("media_type", "image"),
        ("description", description or "<p>%s.</p> Photo credit: NASA/%s" % (title, PHOTOGRAPHERS[n % 8] or "KSC")),
    ]
    if PHOTOGRAPHERS[n % 8]:
        fields.append(("photographer", PHOTOGRAPHERS[n % 8]))
    if n % 3 == 0:
        fields.append(("location", ["Kennedy Space Center, FL", "Houston, TX", "Edwards, CA"][n % 9 // 3]))
    if n % 4 == 1:
        fields.append(("secondary_creator", "NASA/%s" % CENTERS[n % len(CENTERS)]))
    if n % 5 == 2:
        fields.append(("description_508", title))
    if n % 2:
        fields.reverse()
    for key, value in fields:
        data[key] = value
    return {
        "href": "%s/image/%s/collection.json" % (ASSETS, identifier.replace(" ", "%20")),
        "data": [data],
        "links": links(identifier, n, newer=n % 2 == 0),
    }


def collection(href, items, total, page, size, query):
    document = {"version": "1.0", "href": href, "items": items, "metadata": {"total_hits": total}}
    nav = []
    if page * size < total:
        nav.append({"rel": "next", "prompt": "Next", "href": "%s/search?q=%s&page=%d&media_type=image&page_size=%d" % (API, query, page + 1, size)})
    if page > 1:
        nav.append({"rel": "prev", "prompt": "Previous", "href": "%s/search?q=%s&page=%d&media_type=image&page_size=%d" % (API, query, page - 1, size)})
    if nav:
        document["links"] = nav
    return {"collection": document}


def write(name, document):
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as out:
        out.write(json.dumps(document, ensure_ascii=False, indent=1) + "\n")


def pages(prefix, query, items):
    for size in SIZES:
        count = (len(items) + size - 1) // size
        for page in range(1, count + 1):
            href = "%s/search?q=%s&media_type=image&page=%d&page_size=%d" % (API, query, page, size)
            write("%s-%d-%d.json" % (prefix, size, page),
                  collection(href, items[(page - 1) * size:page * size], len(items), page, size, query))


def assets(identifier):
    root = "http://images-assets.nasa.gov/image/%s/%s" % (identifier.replace(" ", "%20"), identifier.replace(" ", "%20"))
    hrefs = [root + suffix for suffix in ("~orig.jpg", "~large.jpg", "~medium.jpg", "~small.jpg", "~thumb.jpg")]
    hrefs.append("http://images-assets.nasa.gov/image/%s/metadata.json" % identifier.replace(" ", "%20"))
    return {"collection": {"version": "1.0", "href": "%s/asset/%s" % (API, identifier.replace(" ", "%20")),
                           "items": [{"href": href} for href in hrefs]}}


def detail_files(record):
    identifier = record["data"][0]["nasa_id"]
    href = "%s/search?nasa_id=%s" % (API, identifier.replace(" ", "%20"))
    write("item-%s.json" % identifier, collection(href, [record], 1, 1, 100, ""))
    write("asset-%s.json" % identifier, assets(identifier))


def hostile():
    ansi = item("PWNED-0001", 0, "\u001b[31mRED\u001b[0m rover \u001b]0;pwned\u0007 on Mars")
    bidi = item("PWNED-0002", 1, "launch \u202egpj.exe\u202c photo")
    bidi["data"][0]["photographer"] = "Mallory\u202e\u200b"
    script = item("PWNED-0003", 2, "C1 \u009b2J clear \u0085 line",
                  description="<script>document.title='\u001b]0;x\u0007'</script>Eve &#x1b;[2J wrote this")
    script["data"][0]["secondary_creator"] = "Eve\u001b[2J"
    script["data"][0].pop("photographer", None)
    bad_preview = item("PWNED-0004", 3, "Broken preview")
    bad_preview["links"] = [{"href": "file:///etc/passwd", "rel": "preview", "render": "image"}]
    evil_http = item("PWNED-0005", 4, "Plain http elsewhere")
    evil_http["links"] = [{"href": "http://evil.example/x~thumb.jpg", "rel": "preview", "render": "image"}]
    traversal = item("../../etc/passwd", 5, "Traversal")
    video = item("PWNED-0007", 6, "A video")
    video["data"][0]["media_type"] = "video"
    duplicate = json.loads(json.dumps(ansi))
    items = [ansi, bidi, script, bad_preview, evil_http, traversal, video, duplicate]
    write("search-pwned.json", collection("%s/search?q=pwned&media_type=image" % API, items, len(items), 1, 100, "pwned"))


def emulation():
    allowed = "|".join(str(size) for size in SIZES)
    empty = json.dumps({"collection": {"version": "1.0", "href": API + "/search", "items": [], "metadata": {"total_hits": 0}}})
    routes = [
        {"path": "/nasa/search", "query": {"nasa_id": "*"}, "file": "item-{q:nasa_id}.json"},
        {"path": "/nasa/search", "query": {"nasa_id": "*"}, "body": empty},
        {"path": "/nasa/search", "query": {"q": "~dogs", "page_size": allowed}, "file": "search-dogs-{q:page_size}-{q:page}.json"},
        {"path": "/nasa/search", "query": {"q": "~dogs"}, "file": "search-dogs-20-{q:page}.json"},
        {"path": "/nasa/search", "query": {"q": "~apollo", "page_size": allowed}, "file": "feed-{q:page_size}-{q:page}.json"},
        {"path": "/nasa/search", "query": {"q": "~apollo"}, "file": "feed-20-{q:page}.json"},
        {"path": "/nasa/search", "query": {"q": "~pwned"}, "file": "search-pwned.json"},
        {"path": "/nasa/search", "query": {"q": "~toodeep"}, "status": 400,
         "body": json.dumps({"reason": "Maximum number of search results have been displayed. Please refine your search."})},
        {"path": "/nasa/search", "query": {"q": "!", "center": "!", "keywords": "!", "photographer": "!", "location": "!",
                                           "title": "!", "description": "!"}, "status": 400,
         "body": json.dumps({"reason": "Expected 'q' text search parameter or other keywords."})},
        {"path": "/nasa/search", "body": empty},
        {"path": "/nasa/asset/*", "file": "asset-{1}.json"},
        {"path": "/nasa/asset/*", "status": 404, "body": json.dumps({"reason": "No assets found with the given nasa_id."})},
        {"prefix": "/nasa-assets/", "image": "thumb"},
    ]
    manifest = {
        "settings": {"PHOTOS_NASA_API": "{server}/nasa"},
        "rewrite": {
            "https://images-assets.nasa.gov": "{server}/nasa-assets",
            "http://images-assets.nasa.gov": "{server}/nasa-assets",
            "http://images-api.nasa.gov": "{server}/nasa",
        },
        "routes": routes,
        "conformance": {
            "search": "dogs",
            "per_page": 10,
            "feed": True,
            "detail": "nasa:" + DETAIL_ID,
            "detail_title": "Astronaut Edwin Aldrin",
            "unknown": "nasa:as11-99-0000",
            "invalid_ids": ["nasa:a/b", "nasa:..", "nasa:a..b", "nasa: leading", "nasa:trailing.", "nasa:a%2Fb",
                            "nasa:a?b", "nasa:a#b", "nasa:a\\b", "nasa:" + "x" * 101],
            "hostile": "pwned",
        },
    }
    with open(os.path.join(HERE, "emulation.json"), "w", encoding="utf-8") as out:
        out.write(json.dumps(manifest, indent=2) + "\n")


def main():
    for name in os.listdir(HERE):
        if name.endswith(".json"):
            os.remove(os.path.join(HERE, name))
    dogs = [item(nasa_id("DOG", n), n, title, keywords=["dogs", "security"] if n % 2 else ["K-9", "canine", "dogs"])
            for n, title in enumerate(DOG_TITLES)]
    pages("search-dogs", "dogs", dogs)
    feed = [item(nasa_id("APO", 100 + n), 100 + n, title, keywords=["Apollo", "Moon"]) for n, title in enumerate(APOLLO_TITLES)]
    feed[2] = item(SPACED_ID, 103, APOLLO_TITLES[2], keywords=["Apollo 11", "crew"])
    pages("feed", "apollo", feed)
    hostile()

    flag = item(DETAIL_ID, 4, "Apollo 11 Mission image - Astronaut Edwin Aldrin poses beside the U.S. flag",
                keywords=["APOLLO 11", "FLAG", "LUNAR SURFACE", "ALDRIN"],
                description='<p>Astronaut Edwin E. Aldrin Jr., lunar module pilot of the first lunar landing mission, poses for a '
                            'photograph beside the deployed United States flag during an Apollo 11 extravehicular activity '
                            '(EVA) on the lunar surface.</p><p>The Lunar Module (LM) is on the left, and the footprints of the '
                            'astronauts are clearly visible in the soil of the Moon. Astronaut Neil A. Armstrong, commander, '
                            'took this picture with a 70mm Hasselblad lunar surface camera &mdash; see '
                            '<a href="https://www.nasa.gov/mission_pages/apollo/apollo11.html">Apollo 11</a>.</p>')
    flag["data"][0].update({"center": "JSC", "date_created": "1969-07-20T00:00:00Z", "location": "Sea of Tranquility",
                            "photographer": "Neil A. Armstrong"})
    for record in [flag] + dogs[:10] + feed[:10]:
        detail_files(record)
    emulation()


if __name__ == "__main__":
    main()
