#!/bin/sh
# Terminal benchmark: rocket beside whiptail, dialog, questionary, InquirerPy and inquirer on the
# same interaction (a message, a two-option choice, a typed name), in one run.
# Needs once (see ../shared/tools/peers/run.sh): apt-get install -y whiptail dialog;
#   python3 -m venv /tmp/peers-venv && /tmp/peers-venv/bin/pip install pyte questionary inquirerpy inquirer; pip install pyte
set -eu
cd "$(dirname "$0")/.."
# The release build measured: fully static (no dynamic loader work, no relocation of a shared
# Swift runtime at start-up).
sh scripts/build-release.sh
# A binary just written is mapped from the page cache as it was written, and costs about 1 MB
# more resident than one read back from disk (measured 9.2 against 8.2 MB of peak RSS for the
# same file): written out and its pages dropped, it is measured as a first run after an install.
sync
python3 -c 'import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)' .build/release/rocket
RUNS=${RUNS:-9} sh ../shared/tools/peers/run.sh "$PWD/.build/release/rocket"
echo "binary: $(wc -c < .build/release/rocket) bytes; stripped: $(strip -o /tmp/rocket-stripped-$$ .build/release/rocket && wc -c < /tmp/rocket-stripped-$$) bytes"
rm -f /tmp/rocket-stripped-$$
