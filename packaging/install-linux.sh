#!/usr/bin/env sh
# Adds Fusecam to the desktop's application menu for this user: the desktop entry and the
# icon. FUSECAM points at the program (default: `fusecam` on PATH, e.g. from pipx; for the
# bundle: FUSECAM=/path/to/dist/fusecam/fusecam packaging/install-linux.sh).
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
program="${FUSECAM:-$(command -v fusecam || true)}"
[ -n "$program" ] || { echo "fusecam not found on PATH; set FUSECAM=/path/to/fusecam" >&2; exit 1; }
data="${XDG_DATA_HOME:-$HOME/.local/share}"
icons="$here/../app/gui/resources/icons"
for size in 16 32 48 64 128 256 512; do
    mkdir -p "$data/icons/hicolor/${size}x${size}/apps"
    cp "$icons/fusecam-$size.png" "$data/icons/hicolor/${size}x${size}/apps/fusecam.png"
done
mkdir -p "$data/applications"
sed "s|^Exec=fusecam|Exec=$program|" "$here/fusecam.desktop" > "$data/applications/fusecam.desktop"
echo "installed $data/applications/fusecam.desktop (runs $program)"
