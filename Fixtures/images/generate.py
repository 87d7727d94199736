#!/usr/bin/env python3
"""Regenerate the sample images in this folder (deterministic pattern, no noise).

    pip install pillow && python3 Fixtures/images/generate.py

base-thumb.jpg is the base that photos-fixture-server uses to synthesize /thumbs/<N>.jpg:
keep it a small baseline JPEG (a few KB) so that the synthesized thumbnails stay within 5-20 KB.
"""
import math
import os

from PIL import Image, ImageDraw

HERE = os.path.dirname(os.path.abspath(__file__))


def pattern(width, height, hue_shift=0):
    """Diagonal RGB gradient with concentric rings and a few solid shapes."""
    img = Image.new("RGB", (width, height))
    px = img.load()
    cx, cy = width / 2.0, height / 2.0
    for y in range(height):
        for x in range(width):
            r = int(255 * x / max(1, width - 1))
            g = int(255 * y / max(1, height - 1))
            d = math.hypot(x - cx, y - cy)
            b = int(127 + 127 * math.cos(d / 12.0 + hue_shift))
            px[x, y] = ((r + hue_shift * 40) % 256, g, b)
    draw = ImageDraw.Draw(img)
    s = min(width, height)
    draw.rectangle([s // 10, s // 10, s // 10 + s // 4, s // 10 + s // 4], fill=(240, 240, 240), outline=(0, 0, 0))
    draw.ellipse([width - s // 10 - s // 4, height - s // 10 - s // 4, width - s // 10, height - s // 10],
                 fill=(20, 20, 20), outline=(255, 255, 255))
    draw.polygon([(width // 2, s // 12), (width // 2 - s // 8, s // 12 + s // 5), (width // 2 + s // 8, s // 12 + s // 5)],
                 fill=(250, 200, 0))
    return img


def save(img, name, **kwargs):
    path = os.path.join(HERE, name)
    img.save(path, **kwargs)
    print(f"{name}: {img.width}x{img.height}, {os.path.getsize(path)} bytes")


def main():
    save(pattern(640, 480), "sample.jpg", quality=80)
    save(pattern(1024, 768, hue_shift=2), "large.jpg", quality=75)
    save(pattern(150, 150, hue_shift=1), "thumb.jpg", quality=85)
    save(pattern(128, 96, hue_shift=3), "base-thumb.jpg", quality=80)
    save(pattern(320, 240, hue_shift=4), "sample.png", optimize=True)
    save(pattern(640, 480, hue_shift=5), "sample.webp", quality=80, method=6)


if __name__ == "__main__":
    main()
