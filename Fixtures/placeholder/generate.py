#!/usr/bin/env python3
"""Regenerate photos.json: the first 500 of jsonplaceholder's 5000 /photos records (deterministic).

    python3 Fixtures/placeholder/generate.py

albumId = ceil(id / 50), so 10 albums of 50. The first ten records are jsonplaceholder's own;
the rest get lorem-ipsum titles of the same shape (latin words, 3 to 10 of them) and 6-hex-digit
colours (a few shorter, as in the real data). A few records are hostile on purpose: ANSI escapes,
a bidi override, newlines in titles, and a thumbnailUrl with a file: scheme. The file is ASCII:
non-ASCII characters are written as \\uXXXX escapes so that nothing invisible hides in it.

Image URLs use the real host via.placeholder.com; photos-fixture-server rewrites it to its own
/placeholder-img/ when serving.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
COUNT = 500
PER_ALBUM = 50

KNOWN = [
    ("accusamus beatae ad facilis cum similique qui sunt", "92c952"),
    ("reprehenderit est deserunt velit ipsam", "771796"),
    ("officia porro iure quia iusto qui ipsa ut modi", "24f355"),
    ("culpa odio esse rerum omnis laboriosam voluptate repudiandae", "d32776"),
    ("natus nisi omnis corporis facere molestiae rerum in", "f66b97"),
    ("accusamus ea aliquid et amet sequi nemo", "56a8c2"),
    ("officia delectus consequatur vero aut veniam explicabo molestias", "b0f7cc"),
    ("aut porro officiis laborum odit ea laudantium corporis", "54176f"),
    ("qui eius qui autem sed", "51aa97"),
    ("beatae et provident et ut vel", "810b14"),
]

WORDS = """a ab accusamus accusantium ad adipisci alias aliquam aliquid amet animi aperiam architecto
asperiores aspernatur assumenda at atque aut autem beatae blanditiis commodi consectetur consequatur
consequuntur corporis corrupti culpa cum cumque cupiditate debitis delectus deleniti deserunt dicta
dignissimos distinctio dolor dolore dolorem doloremque dolores doloribus dolorum ducimus ea eaque earum
eius eligendi enim eos error esse est et eum eveniet ex excepturi exercitationem expedita explicabo
facere facilis fuga fugiat fugit harum hic id illo illum impedit in incidunt inventore ipsa ipsam ipsum
iste itaque iure iusto labore laboriosam laborum laudantium libero magnam magni maiores maxime minima
minus modi molestiae molestias mollitia nam natus necessitatibus nemo neque nesciunt nihil nisi nobis
non nostrum nulla numquam obcaecati odio odit officia officiis omnis optio pariatur perferendis
perspiciatis placeat porro possimus praesentium provident quae quaerat quam quas quasi qui quia quibusdam
quidem quis quisquam quo quod quos ratione recusandae reiciendis rem repellat repellendus reprehenderit
repudiandae rerum saepe sapiente sed sequi similique sint sit soluta sunt suscipit tempora tempore
temporibus tenetur totam ullam unde ut vel velit veniam veritatis vero vitae voluptas voluptate
voluptatem voluptates voluptatibus voluptatum""".split()

# Hostile records: id -> (title or None to keep the generated one, thumbnailUrl or None).
HOSTILE = {
    13: ("\u001b[31mRED\u001b[0m quia \u001b]0;pwned\u0007 sunt", None),
    27: ("eos \u202eexe.sunt\u202c voluptas", None),
    42: ("line one\nline two\r\nline three", None),
    77: (None, "file:///etc/passwd"),
}


class Random:
    """A tiny LCG so the output never depends on Python's random module."""

    def __init__(self, seed):
        self.state = seed

    def next(self, bound):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        return (self.state >> 33) % bound


def main():
    rng = Random(2016)
    records = []
    for photo_id in range(1, COUNT + 1):
        if photo_id <= len(KNOWN):
            title, colour = KNOWN[photo_id - 1]
        else:
            title = " ".join(WORDS[rng.next(len(WORDS))] for _ in range(3 + rng.next(8)))
            digits = 6 if rng.next(10) else 5  # a few colours lost a leading zero, as in the real data
            colour = "%0*x" % (digits, rng.next(16 ** digits))
        thumbnail = "https://via.placeholder.com/150/%s" % colour
        if photo_id in HOSTILE:
            hostile_title, hostile_thumbnail = HOSTILE[photo_id]
            title = hostile_title or title
            thumbnail = hostile_thumbnail or thumbnail
        records.append({
            "albumId": (photo_id - 1) // PER_ALBUM + 1,
            "id": photo_id,
            "title": title,
            "url": "https://via.placeholder.com/600/%s" % colour,
            "thumbnailUrl": thumbnail,
        })
    path = os.path.join(HERE, "photos.json")
    with open(path, "w", encoding="ascii") as handle:
        handle.write(json.dumps(records, indent=2, ensure_ascii=True) + "\n")
    print("photos.json:", len(records), "records,", os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
