#!/usr/bin/env python3
"""Regenerate the Flickr REST fixtures in this folder (deterministic; no network).

    python3 Fixtures/flickr/generate.py

The files follow the format of recorded Flickr responses (see shared REFERENCE.md):
- search-dogs-page1.json: numbers as numbers (2024 style), plain slashes, and hostile entries
  (ANSI escapes, bidi override, newlines, a 10 KB title, emoji ZWJ sequences, an id
  "../../etc/passwd", a url_q "file:///etc/passwd", a photo without url_* extras).
- search-dogs-page2.json: 2017 style, page/pages/perpage/total and width_X/height_X as STRINGS,
  slashes escaped as PHP's json_encode does ("https:\\/\\/...").
- search-dogs-page3.json: the last, short page.
- recent-page1.json: flickr.photos.getRecent (total 1000 as in recordings).
- getInfo-<id>.json / getSizes-<id>.json for three photos of page 1.
- error-1.json, error-100.json, error-105.json: {"stat":"fail",...}.

Image URLs use the real host live.staticflickr.com; photos-fixture-server rewrites it to its own
/flickr-static/ when serving, so these files stay authentic.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
STATIC = "https://live.staticflickr.com"
EXTRAS_SIZES = [("q", 150, 150), ("m", 500, 375), ("z", 640, 480), ("l", 1024, 768)]

OWNERS = [
    ("105731165@N07", "Andrea Ruiz", "andrearuiz"),
    ("48889646@N07", "Tom Whitfield", None),
    ("12037949754@N01", "k9photo", "k9photo"),
    ("196385467@N03", "Mireille D.", None),
    ("35034347371@N01", "jsmith_photography", "jsmithphoto"),
    ("61021753@N02", "Hiroshi Tanaka", "htanaka"),
    ("142154785@N05", "Paws & Claws Rescue", "pawsandclaws"),
    ("8070463@N03", "marcus.l", None),
]

LICENSES = ["0", "4", "1", "2", "9", "10", "5"]

NORMAL_TITLES = [
    "Luna in the snow", "Max chasing a frisbee", "Sleepy beagle", "Border collie at work",
    "Two pugs on a sofa", "Husky eyes", "Dachshund parade, Hyde Park", "IMG_4471",
    "Bruno (8 weeks)", "Golden hour with Daisy", "Corgi butt", "Greyhound, retired racer",
    "Dog show 2023 - best in breed", "Shiba Inu side-eye", "Wet dog", "DSC_0193",
    "Bernese mountain dog puppy", "Labrador retriever swimming", "Mud. So much mud.",
    "Whippet zoomies", "Old friend", "Beach day with Odin", "Poodle haircut, before and after",
    "Rescue dog, first day home", "Boxer portrait", "Jack Russell vs. the garden hose",
    "Snow nose", "Waiting for the ball", "Herding sheep, Snowdonia", "Pepper & Salt",
]

TAGS = [
    "dog dogs puppy pet", "dog beach retriever goldenretriever", "dog park frisbee", "beagle sleep pets",
    "bordercollie sheep farm dog", "pug pugs sofa", "husky siberianhusky eyes", "dachshund london hydepark",
    "", "dog snow winter", "corgi", "greyhound adoption", "dogshow", "shibainu dog", "dog rain",
]


def stable(n, salt):
    """A deterministic pseudo-random number."""
    return (n * 2654435761 + salt * 40503) % 4294967296


def secret_for(photo_id):
    seed = int(photo_id) if photo_id.isdigit() else sum(ord(c) * 131 ** n for n, c in enumerate(photo_id))
    return "%010x" % (stable(seed % 1000003, 7) * 9973 % (16 ** 10))


def photo_record(photo_id, index, title, *, extras=True, farm=True, numbers=True, skip=(), url_q=None,
                 taken_year=2024, owner_index=None):
    owner, owner_name, path_alias = OWNERS[(owner_index if owner_index is not None else index) % len(OWNERS)]
    secret = secret_for(photo_id)
    server = "65535"
    record = {
        "id": photo_id,
        "owner": owner,
        "secret": secret,
        "server": server,
    }
    if farm:
        record["farm"] = 66
    record["title"] = title
    record.update({"ispublic": 1, "isfriend": 0, "isfamily": 0})
    upload = 1711040123 - index * 3671
    taken_month = 1 + index % 12
    record.update({
        "license": LICENSES[index % len(LICENSES)],
        "description": {"_content": "" if index % 3 == 0 else "Taken on a walk. #%d" % (index + 1)},
        "o_width": str(4000 + (index % 3) * 16) if numbers else str(4000 + (index % 3) * 16),
        "o_height": str(3000 + (index % 3) * 12),
        "dateupload": str(upload),
        "datetaken": "%04d-%02d-%02d %02d:%02d:%02d" % (taken_year, taken_month, 1 + index % 28, 7 + index % 12,
                                                        (index * 7) % 60, (index * 13) % 60),
        "datetakengranularity": 0 if numbers else "0",
        "datetakenunknown": "0",
        "ownername": owner_name,
        "views": str(37 + stable(index, 3) % 5000),
        "tags": TAGS[index % len(TAGS)],
        "machine_tags": "",
        "pathalias": path_alias,
        "media": "photo",
        "media_status": "ready",
    })
    if extras:
        for suffix, width, height in EXTRAS_SIZES:
            if suffix in skip:
                continue
            file_suffix = {"q": "_q", "m": "", "z": "_z", "l": "_b"}[suffix]
            record["url_" + suffix] = "%s/%s/%s_%s%s.jpg" % (STATIC, server, photo_id, secret, file_suffix)
            record["height_" + suffix] = height if numbers else str(height)
            record["width_" + suffix] = width if numbers else str(width)
        if url_q is not None:
            record["url_q"] = url_q
    return record


def listing(page, pages, perpage, total, photos, *, numbers=True):
    if numbers:
        head = {"page": page, "pages": pages, "perpage": perpage, "total": total}
    else:
        head = {"page": str(page), "pages": str(pages), "perpage": str(perpage), "total": str(total)}
    head["photo"] = photos
    return {"photos": head, "stat": "ok"}


def write(name, value, *, php_slashes=False):
    # Recorded Flickr JSON escapes non-ASCII as \\uXXXX (PHP json_encode) and, usually, slashes.
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    if php_slashes:
        text = text.replace("/", "\\/")
    with open(os.path.join(HERE, name), "w", encoding="ascii") as handle:
        handle.write(text + "\n")
    print(name, len(text), "bytes")


# Photo ids used across files (11 digits, descending like a real relevance-free feed).
PAGE1_IDS = {
    "normal": "53624890009",
    "ansi": "53625112784",
    "bidi": "53623987651",
    "newlines": "53624001122",
    "long": "53622876540",
    "emoji": "53621765431",
    "traversal": "../../etc/passwd",
    "file_thumb": "53620654329",
    "no_extras": "53619543218",
    "legacy": "53618432107",
}
ANSI_TITLE = "\u001b[31mRED\u001b[0m dog \u001b]0;pwned\u0007 on the lawn"
BIDI_TITLE = "good boy \u202egpj.exe\u202c photo"
NEWLINE_TITLE = "line one\nline two\r\nline three\tand a tab"
LONG_TITLE = ("Woof " * 2048).strip()  # 10 KB
EMOJI_TITLE = "\U0001f415\u200d\U0001f9ba service dog \U0001f468\u200d\U0001f469\u200d\U0001f467 family \U0001f3f3\ufe0f\u200d\U0001f308 pride walk"


def search_page1():
    photos = [
        photo_record(PAGE1_IDS["normal"], 0, "Rex at Playa de la Concha"),
        photo_record(PAGE1_IDS["ansi"], 1, ANSI_TITLE),
        photo_record(PAGE1_IDS["bidi"], 2, BIDI_TITLE),
        photo_record(PAGE1_IDS["newlines"], 3, NEWLINE_TITLE),
        photo_record(PAGE1_IDS["long"], 4, LONG_TITLE),
        photo_record(PAGE1_IDS["emoji"], 5, EMOJI_TITLE),
        photo_record(PAGE1_IDS["traversal"], 6, "nothing to see here"),
        photo_record(PAGE1_IDS["file_thumb"], 7, "Puppy with a file thumbnail", url_q="file:///etc/passwd"),
        photo_record(PAGE1_IDS["no_extras"], 8, "", extras=False),
        photo_record(PAGE1_IDS["legacy"], 9, "Old dog, new tricks", skip=("l", "z")),
    ]
    # The legacy record: owner name missing (owner falls back to the NSID).
    del photos[9]["ownername"]
    return listing(1, 3, 10, 28, photos)


def search_page(page, ids, first_index):
    photos = [
        photo_record(pid, first_index + n, NORMAL_TITLES[(first_index + n) % len(NORMAL_TITLES)],
                     numbers=(page != 2), taken_year=2023)
        for n, pid in enumerate(ids)
    ]
    return listing(page, 3, 10, 28, photos, numbers=(page != 2))


def recent_page1():
    ids = ["536249%05d" % (91234 - n * 1117) for n in range(10)]
    photos = [
        photo_record(pid, 40 + n, NORMAL_TITLES[(n * 7 + 3) % len(NORMAL_TITLES)].replace("dog", "cat"),
                     owner_index=n * 3)
        for n, pid in enumerate(ids)
    ]
    return listing(1, 100, 10, 1000, photos), ids


def get_info(photo_id, index, title, description, tags):
    owner, owner_name, path_alias = OWNERS[index % len(OWNERS)]
    secret = secret_for(photo_id)
    upload = 1711040123 - index * 3671
    return {
        "photo": {
            "id": photo_id, "secret": secret, "server": "65535", "farm": 66, "dateuploaded": str(upload),
            "isfavorite": 0, "license": LICENSES[index % len(LICENSES)], "safety_level": "0", "rotation": 0,
            "originalsecret": "%010x" % (stable(index, 11) % (16 ** 10)), "originalformat": "jpg",
            "owner": {"nsid": owner, "username": owner_name, "realname": owner_name.split(" ")[0] + " R.",
                      "location": "San Sebasti\u00e1n, Spain" if index == 0 else "", "iconserver": "65535",
                      "iconfarm": 66, "path_alias": path_alias},
            "title": {"_content": title},
            "description": {"_content": description},
            "visibility": {"ispublic": 1, "isfriend": 0, "isfamily": 0},
            "dates": {"posted": str(upload), "taken": "2024-%02d-%02d %02d:%02d:%02d" % (
                1 + index % 12, 1 + index % 28, 7 + index % 12, (index * 7) % 60, (index * 13) % 60),
                "takengranularity": 0, "takenunknown": "0", "lastupdate": str(upload + 86400)},
            "views": str(37 + stable(index, 3) % 5000),
            "editability": {"cancomment": 0, "canaddmeta": 0},
            "publiceditability": {"cancomment": 1, "canaddmeta": 0},
            "usage": {"candownload": 1, "canblog": 0, "canprint": 0, "canshare": 1},
            "comments": {"_content": str(index % 4)},
            "notes": {"note": []},
            "people": {"haspeople": 0},
            "tags": {"tag": [
                {"id": "105706%d-%s-%d" % (index, photo_id, n), "author": owner, "authorname": owner_name,
                 "raw": raw, "_content": raw.lower().replace(" ", ""), "machine_tag": 0}
                for n, raw in enumerate(tags)
            ]},
            "urls": {"url": [{"type": "photopage",
                              "_content": "https://www.flickr.com/photos/%s/%s/" % (path_alias or owner, photo_id)}]},
            "media": "photo",
        },
        "stat": "ok",
    }


SIZE_CODES = {
    "Square": "sq", "Large Square": "q", "Thumbnail": "t", "Small": "s", "Small 320": "n", "Small 400": "w",
    "Medium": "m", "Medium 640": "z", "Medium 800": "c", "Large": "l", "Large 1600": "h", "Large 2048": "k",
    "Original": "o",
}


def get_sizes(photo_id, index, *, string_dims=False):
    secret = secret_for(photo_id)
    osecret = "%010x" % (stable(index, 11) % (16 ** 10))
    base = "%s/65535/%s_%s" % (STATIC, photo_id, secret)
    rows = [
        ("Square", 75, 75, base + "_s.jpg"),
        ("Large Square", 150, 150, base + "_q.jpg"),
        ("Thumbnail", 100, 75, base + "_t.jpg"),
        ("Small", 240, 180, base + "_m.jpg"),
        ("Small 320", 320, 240, base + "_n.jpg"),
        ("Small 400", 400, 300, base + "_w.jpg"),
        ("Medium", 500, 375, base + ".jpg"),
        ("Medium 640", 640, 480, base + "_z.jpg"),
        ("Medium 800", 800, 600, base + "_c.jpg"),
        ("Large", 1024, 768, base + "_b.jpg"),
        ("Large 1600", 1600, 1200, "%s/65535/%s_%s_h.jpg" % (STATIC, photo_id, "%010x" % (stable(index, 13) % 16 ** 10))),
        ("Large 2048", 2048, 1536, "%s/65535/%s_%s_k.jpg" % (STATIC, photo_id, "%010x" % (stable(index, 17) % 16 ** 10))),
        ("Original", 4000, 3000, "%s/65535/%s_%s_o.jpg" % (STATIC, photo_id, osecret)),
    ]
    sizes = []
    for n, (label, width, height, source) in enumerate(rows):
        # Recordings mix strings and numbers for width/height.
        as_string = string_dims or n % 2 == 1
        sizes.append({
            "label": label,
            "width": str(width) if as_string else width,
            "height": str(height) if as_string else height,
            "source": source,
            "url": "https://www.flickr.com/photos/%s/%s/sizes/%s/" % (
                OWNERS[index % len(OWNERS)][0], photo_id, SIZE_CODES[label]),
            "media": "photo",
        })
    return {"sizes": {"canblog": 0, "canprint": 0, "candownload": 1, "size": sizes}, "stat": "ok"}


def main():
    write("search-dogs-page1.json", search_page1())
    write("search-dogs-page2.json", search_page(2, ["536178%05d" % (21096 - n * 977) for n in range(10)], 10),
          php_slashes=True)
    write("search-dogs-page3.json", search_page(3, ["536089%05d" % (54321 - n * 1301) for n in range(8)], 20),
          php_slashes=True)
    recent, _ = recent_page1()
    write("recent-page1.json", recent)
    details = [
        (PAGE1_IDS["normal"], 0, "Rex at Playa de la Concha",
         "Rex loves the sea.\nShot on a Fujifilm X-T4, 35mm f/1.4.", ["dog", "beach", "Golden Retriever", "San Sebasti\u00e1n"], False),
        (PAGE1_IDS["ansi"], 1, ANSI_TITLE, "\u001b[2J\u001b[Hcleared your screen", ["dog", "lawn"], True),
        (PAGE1_IDS["no_extras"], 8, "", "", [], True),
    ]
    for photo_id, index, title, description, tags, string_dims in details:
        write("getInfo-%s.json" % photo_id, get_info(photo_id, index, title, description, tags), php_slashes=True)
        write("getSizes-%s.json" % photo_id, get_sizes(photo_id, index, string_dims=string_dims), php_slashes=True)
    write("error-1.json", {"stat": "fail", "code": 1, "message": "Photo not found"})
    write("error-100.json", {"stat": "fail", "code": 100, "message": "Invalid API Key (Key has invalid format)"})
    write("error-105.json", {"stat": "fail", "code": 105, "message": "Service currently unavailable"})


if __name__ == "__main__":
    main()
