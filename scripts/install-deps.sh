#!/usr/bin/env bash
# Installs ibsdn's build and test dependencies from Debian 12's archive. Idempotent: when every
# package is present it changes nothing and needs no network.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config clang clang-format libclang-rt-14-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libcli11-dev libyaml-cpp-dev libboost-dev libsqlite3-dev sqlite3 libglpk-dev
  libssl-dev
  opensm libopensm-dev libibumad-dev libibmad-dev infiniband-diags ibsim-utils
  slurm-wlm slurmctld slurmd slurm-client libslurm-dev munge shellcheck
  dpkg-dev groff-base man-db gnuplot-nox libsimgrid-dev
)

missing=()
for p in "${packages[@]}"; do
  [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) == "install ok installed" ]] || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
