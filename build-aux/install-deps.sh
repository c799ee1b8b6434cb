#!/usr/bin/env bash
# Installs the Debian 12 packages Tensorscope needs to build and test, but only
# the ones that are missing, so a second `make` is silent and fast.
set -eu

packages=(
  meson ninja-build pkg-config gcc clang libclang-rt-14-dev
  libglib2.0-dev libglib2.0-bin libjson-glib-dev zlib1g-dev
  libcairo2-dev libgtk-4-dev libgtksourceview-5-dev libadwaita-1-dev
  libpython3-dev python3 python3-numpy libopenblas-dev
  # torch.fft's transforms
  libfftw3-dev
  # PyTorch's vectorized float32 math (exp, log, tanh...), bit for bit
  libsleef-dev
  gettext desktop-file-utils appstream
  xvfb xauth
  # Chinese text in the app and in rendered images (zh_CN, zh_TW), and
  # reading it back from a rendered PDF in the tests.
  fonts-noto-cjk poppler-utils
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

[ ${#missing[@]} -eq 0 ] && exit 0

echo "tensorscope: installing missing Debian packages: ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
