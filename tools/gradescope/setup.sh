#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image
# from the zip `./lab package gradescope` made (docs/course-staff.md). It
# installs what ./lab installs (./lab setup: one list, in ./lab), builds what
# grading needs and removes the reference's sources from the image
# (tools/autograder.py prepare).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

# The CUDA toolkit, where the package was made with --cuda-setup SCRIPT.
if [[ -f cuda-setup.sh ]]; then
  bash cuda-setup.sh
fi
bash lab setup
python3 tools/autograder.py prepare --source .
