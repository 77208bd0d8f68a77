#!/usr/bin/env python3
"""Draws the demo's 48×48 rocket logo as a PNG (stdlib only) and prints it as a data URI.

python3 scripts/make-logo.py [--full] [FILE.png]: the logo is a disc on a transparent ground;
--full fills the whole square (a picture whose corners the image styles visibly cut)."""
import base64, math, struct, sys, zlib
W = H = 48
full = "--full" in sys.argv
args = [a for a in sys.argv[1:] if a != "--full"]
def px(x, y):
    cx, cy = x - W / 2 + 0.5, y - H / 2 + 0.5
    r = math.hypot(cx, cy)
    if r > 23 and not full: return (0, 0, 0, 0)
    t = y / H                                   # sky gradient
    bg = (int(30 + 20 * t), int(60 + 80 * t), int(160 + 70 * t), 255)
    # rocket body: a rotated ellipse with a nose
    u, v = (cx + cy) / math.sqrt(2), (cy - cx) / math.sqrt(2)
    if (u / 5.5) ** 2 + (v / 15) ** 2 <= 1:
        return (245, 245, 250, 255) if v > -9 else (236, 94, 97, 255)
    if abs(u) < 9 and 7 < v < 13 and abs(u) > 3: return (236, 94, 97, 255)   # fins
    if math.hypot(u, v - 2) < 2.6: return (49, 156, 247, 255)                # window
    if 13 < v < 21 and abs(u) < 3.5 - (v - 13) * 0.4: return (255, 190, 60, 255)  # flame
    return bg
rows = b"".join(b"\0" + bytes(c for x in range(W) for c in px(x, y)) for y in range(H))
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 6, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")
if args: open(args[0], "wb").write(png)
print("data:image/png;base64," + base64.b64encode(png).decode())
