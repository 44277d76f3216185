/*
 * The one member of libnvshmem_device.a, NVSHMEM's device library under its
 * own name (meson.build here says why it exists).  gshmem's device API is
 * header-only (DESIGN.md section 5), so this archive carries no code: no
 * program references the symbol below, so the linker never takes the member
 * in.  It is a host object rather than an empty archive because nvlink, the
 * device linker of -rdc=true builds, warns "Skipping incompatible" on an
 * archive with no members; it holds no device code so that it suits every
 * GPU architecture.
 */
const char gshmemi_nvshmem_device_note[] =
    "gshmem: NVSHMEM's device library name; the device API is in the headers";
