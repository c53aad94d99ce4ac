"""The stream's index page (`/`): the live picture, and exactly what to add in OBS.

An OBS user opening the address the app shows finds here the source to add and its
settings, with this stream's own addresses as the client reached it (token included
when the stream needs one).
"""

from __future__ import annotations

import html
from urllib.parse import quote

_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>Fusecam stream</title>
<style>
body{{margin:0;background:#111;color:#ddd;font:15px/1.45 system-ui,sans-serif}}
img{{display:block;width:100%;max-height:70vh;object-fit:contain;background:#000}}
main{{max-width:52em;margin:0 auto;padding:1em 1.5em}}
code{{background:#222;padding:.1em .35em;border-radius:4px;color:#fff;user-select:all}}
li{{margin:.3em 0}}
</style></head>
<body><img src="stream.mjpg{query}" alt="Fusecam stream">
<main>
<h2>Add this stream to OBS</h2>
<ol>
<li>In <b>Sources</b>, click <b>+</b> and choose <b>Media Source</b>; name it Fusecam.</li>
<li>Untick <b>Local File</b>.</li>
<li><b>Input</b>: <code>{ts}</code></li>
<li><b>Input Format</b>: <code>mpegts</code></li>
<li>Tick <b>Restart playback when source becomes active</b>; set <b>Network Buffering</b>
to 0 MB (the lowest delay).</li>
<li>Leave <b>Use hardware decoding when available</b> as you like, and untick <b>Close
file when inactive</b>.</li>
</ol>
<p>This stream carries the time each frame was captured ({codec}), so OBS shows it at its
real frame rate. To keep your microphone in sync, give it the same delay as Fusecam's
<b>Output delay</b> (Advanced Audio Properties → Sync Offset).</p>
<p>Other players: <code>ffplay {ts}</code>, VLC (Media → Open Network Stream) with the same
address. Browsers and OBS's Browser Source use the Motion JPEG stream
<code>{mjpeg}</code>, which has no time stamps; a still image is at
<code>{snapshot}</code>.</p>
</main></body></html>
"""


def index_page(base: str, token: str | None, codec: str) -> bytes:
    """The page for a client that reached the stream at `base` ("http://host:port", from
    its own request, so the addresses work from where it is)."""
    query = "" if token is None else "?token=" + quote(token)
    return _PAGE.format(
        query=html.escape(query),
        ts=html.escape(f"{base}/stream.ts{query}"),
        mjpeg=html.escape(f"{base}/stream.mjpg{query}"),
        snapshot=html.escape(f"{base}/snapshot.jpg{query}"),
        codec=html.escape(codec),
    ).encode()
