#!/usr/bin/env bash
# ci/peers/nvml_shim: the NVML calls BabelStream and nvbandwidth make reach the driver's library
# with their arguments intact (each result below is one the stand-in library can give only if the
# arguments arrived), a missing entry point is NVML_ERROR_FUNCTION_NOT_FOUND, and a missing
# library NVML_ERROR_LIBRARY_NOT_FOUND. A stand-in libnvidia-ml.so.1 plays the driver.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
shim=$root/ci/peers/nvml_shim
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v cc > /dev/null || { echo "no C compiler: skipped"; exit 77; }

cat > "$tmp/fake_nvml.c" <<'EOF'
#include <string.h>
typedef struct nvmlDevice_st* nvmlDevice_t;
static struct nvmlDevice_st* const gpu = (struct nvmlDevice_st*)0x1234;
int nvmlInit_v2(void) { return 0; }
const char* nvmlErrorString(int r) { return r == 6 ? "fake: not found" : "fake: other"; }
int nvmlSystemGetDriverVersion(char* v, unsigned n) { strncpy(v, "580.00", n); return n < 7 ? 7 : 0; }
int nvmlDeviceGetHandleByPciBusId_v2(const char* id, nvmlDevice_t* d) {
  if (strcmp(id, "0000:01:00.0")) return 6;
  *d = gpu; return 0;
}
int nvmlDeviceGetHandleByUUID(const char* u, nvmlDevice_t* d) {
  if (strcmp(u, "GPU-abc")) return 6;
  *d = gpu; return 0;
}
int nvmlDeviceGetClockInfo(nvmlDevice_t d, int type, unsigned* mhz) {
  if (d != gpu) return 2;
  *mhz = type == 2 ? 2619 : 1980; return 0;
}
EOF
cat > "$tmp/use_shim.c" <<'EOF'
#include <stdio.h>
#include "nvml.h"
int main(void) {
  char version[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = "";
  nvmlDevice_t d = 0, u = 0;
  unsigned mem = 0, sm = 0;
  int init = nvmlInit();
  int ver = nvmlSystemGetDriverVersion(version, sizeof version);
  int pci = nvmlDeviceGetHandleByPciBusId("0000:01:00.0", &d);
  int wrong_pci = nvmlDeviceGetHandleByPciBusId("0000:02:00.0", &d);
  int uuid = nvmlDeviceGetHandleByUUID("GPU-abc", &u);
  int clock_mem = nvmlDeviceGetClockInfo(d, NVML_CLOCK_MEM, &mem);
  int clock_sm = nvmlDeviceGetClockInfo(u, NVML_CLOCK_SM, &sm);
  int affinity = nvmlDeviceSetCpuAffinity(d);
  printf("init=%d version=%d:%s pci=%d wrong_pci=%d:%s uuid=%d mem=%d:%u sm=%d:%u affinity=%d\n",
         init, ver, version, pci, wrong_pci, nvmlErrorString(wrong_pci), uuid, clock_mem, mem,
         clock_sm, sm, affinity);
  return 0;
}
EOF
mkdir -p "$tmp/lib" "$tmp/none"
cc -shared -fPIC -o "$tmp/lib/libnvidia-ml.so.1" "$tmp/fake_nvml.c" &&
  cc -I"$shim" -o "$tmp/use_shim" "$tmp/use_shim.c" "$shim/nvml_shim.c" -ldl ||
  { echo "FAIL: could not build the shim test"; exit 1; }

failures=0
want="init=0 version=0:580.00 pci=0 wrong_pci=6:fake: not found uuid=0 mem=0:2619 sm=0:1980 affinity=13"
got=$(LD_LIBRARY_PATH=$tmp/lib "$tmp/use_shim")
if [[ $got == "$want" ]]; then echo "ok   forwards_to_driver_library"; else
  echo "FAIL forwards_to_driver_library: got '$got', wanted '$want'"; failures=1
fi

# Only where no real NVML is installed: the library-missing answer.
if ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml.so.1'; then
  echo "skip library_missing (this machine has NVML)"
else
  got=$(LD_LIBRARY_PATH=$tmp/none "$tmp/use_shim")
  if [[ $got == "init=12 "*"affinity=12" ]]; then echo "ok   library_missing"; else
    echo "FAIL library_missing: got '$got'"; failures=1
  fi
fi
exit "$failures"
