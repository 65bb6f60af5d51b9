/**
 * The seccomp filter of the sandbox (bwrap `--seccomp FD`): a classic-BPF program that makes the system calls
 * Docker's default profile refuses to unprivileged containers fail with EPERM, so a command cannot create user or
 * other namespaces, mount, trace or read other processes' memory, load BPF programs or kernel modules, use the
 * kernel keyring, perf events, userfaultfd, io_uring, file handles (`open_by_handle_at`), or push characters into
 * a terminal (`ioctl(TIOCSTI)`). Everything else is allowed: this is a deny list over the ordinary program
 * surface, not an allow list.
 *
 * The program checks the architecture first: the native one (x86_64 or aarch64) and its 32-bit compatibility
 * ABI (i386, arm) get their own syscall numbers, x32 calls on x86_64 are refused, and a call made under any
 * other architecture kills the process (it could not be checked). `clone` is refused when its flags ask for a
 * new namespace; `clone3`, whose flags the filter cannot read, answers ENOSYS so C libraries fall back to
 * `clone`. No npm library builds such a program without a native add-on; the numbers below come from
 * libseccomp's tables (`scmp_sys_resolver -a <arch> <name>`), and docs/sandbox.md lists the denied calls.
 */

/** System calls refused with EPERM (names as in the kernel's tables; absent ones are skipped per arch). */
export const DENIED_SYSCALLS = [
  // namespaces and mounts
  'unshare',
  'setns',
  'mount',
  'umount',
  'umount2',
  'pivot_root',
  'chroot',
  'move_mount',
  'open_tree',
  'fsopen',
  'fsconfig',
  'fsmount',
  'fspick',
  'mount_setattr',
  // other processes
  'ptrace',
  'process_vm_readv',
  'process_vm_writev',
  'kcmp',
  'pidfd_getfd',
  // kernel interfaces
  'perf_event_open',
  'bpf',
  'lookup_dcookie',
  'keyctl',
  'add_key',
  'request_key',
  'init_module',
  'finit_module',
  'delete_module',
  'create_module',
  'query_module',
  'get_kernel_syms',
  'kexec_load',
  'kexec_file_load',
  'reboot',
  'userfaultfd',
  'open_by_handle_at',
  'name_to_handle_at',
  'iopl',
  'ioperm',
  'swapon',
  'swapoff',
  'syslog',
  'acct',
  'settimeofday',
  'stime',
  'clock_settime',
  'clock_settime64',
  'clock_adjtime',
  'clock_adjtime64',
  'quotactl',
  'quotactl_fd',
  'nfsservctl',
  '_sysctl',
  'uselib',
  'vm86',
  'vm86old',
  'io_uring_setup',
  'io_uring_enter',
  'io_uring_register',
  'fanotify_init',
  'vhangup',
  'sethostname',
  'setdomainname',
] as const;

type SyscallName = (typeof DENIED_SYSCALLS)[number] | 'clone' | 'clone3' | 'ioctl';

/** Syscall numbers per architecture (libseccomp 2.5.4); a name missing from an arch does not exist there. */
// prettier-ignore
const NUMBERS: Record<'x86_64' | 'i386' | 'aarch64' | 'arm', Partial<Record<SyscallName, number>>> = {
  x86_64: {
    unshare: 272, setns: 308, mount: 165, umount2: 166, pivot_root: 155, chroot: 161, move_mount: 429,
    open_tree: 428, fsopen: 430, fsconfig: 431, fsmount: 432, fspick: 433, mount_setattr: 442, ptrace: 101,
    process_vm_readv: 310, process_vm_writev: 311, kcmp: 312, pidfd_getfd: 438, perf_event_open: 298, bpf: 321,
    lookup_dcookie: 212, keyctl: 250, add_key: 248, request_key: 249, init_module: 175, finit_module: 313,
    delete_module: 176, create_module: 174, query_module: 178, get_kernel_syms: 177, kexec_load: 246,
    kexec_file_load: 320, reboot: 169, userfaultfd: 323, open_by_handle_at: 304, name_to_handle_at: 303,
    iopl: 172, ioperm: 173, swapon: 167, swapoff: 168, syslog: 103, acct: 163, settimeofday: 164,
    clock_settime: 227, clock_adjtime: 305, quotactl: 179, quotactl_fd: 443, nfsservctl: 180, _sysctl: 156,
    uselib: 134, io_uring_setup: 425, io_uring_enter: 426, io_uring_register: 427, fanotify_init: 300,
    vhangup: 153, sethostname: 170, setdomainname: 171, clone: 56, clone3: 435, ioctl: 16,
  },
  i386: {
    unshare: 310, setns: 346, mount: 21, umount: 22, umount2: 52, pivot_root: 217, chroot: 61, move_mount: 429,
    open_tree: 428, fsopen: 430, fsconfig: 431, fsmount: 432, fspick: 433, mount_setattr: 442, ptrace: 26,
    process_vm_readv: 347, process_vm_writev: 348, kcmp: 349, pidfd_getfd: 438, perf_event_open: 336, bpf: 357,
    lookup_dcookie: 253, keyctl: 288, add_key: 286, request_key: 287, init_module: 128, finit_module: 350,
    delete_module: 129, create_module: 127, query_module: 167, get_kernel_syms: 130, kexec_load: 283,
    reboot: 88, userfaultfd: 374, open_by_handle_at: 342, name_to_handle_at: 341, iopl: 110, ioperm: 101,
    swapon: 87, swapoff: 115, syslog: 103, acct: 51, settimeofday: 79, stime: 25, clock_settime: 264,
    clock_settime64: 404, clock_adjtime: 343, clock_adjtime64: 405, quotactl: 131, quotactl_fd: 443,
    nfsservctl: 169, _sysctl: 149, uselib: 86, vm86: 166, vm86old: 113, io_uring_setup: 425,
    io_uring_enter: 426, io_uring_register: 427, fanotify_init: 338, vhangup: 111, sethostname: 74,
    setdomainname: 121, clone: 120, clone3: 435, ioctl: 54,
  },
  aarch64: {
    unshare: 97, setns: 268, mount: 40, umount2: 39, pivot_root: 41, chroot: 51, move_mount: 429, open_tree: 428,
    fsopen: 430, fsconfig: 431, fsmount: 432, fspick: 433, mount_setattr: 442, ptrace: 117,
    process_vm_readv: 270, process_vm_writev: 271, kcmp: 272, pidfd_getfd: 438, perf_event_open: 241, bpf: 280,
    lookup_dcookie: 18, keyctl: 219, add_key: 217, request_key: 218, init_module: 105, finit_module: 273,
    delete_module: 106, kexec_load: 104, kexec_file_load: 294, reboot: 142, userfaultfd: 282,
    open_by_handle_at: 265, name_to_handle_at: 264, swapon: 224, swapoff: 225, syslog: 116, acct: 89,
    settimeofday: 170, clock_settime: 112, clock_adjtime: 266, quotactl: 60, quotactl_fd: 443, nfsservctl: 42,
    io_uring_setup: 425, io_uring_enter: 426, io_uring_register: 427, fanotify_init: 262, vhangup: 58,
    sethostname: 161, setdomainname: 162, clone: 220, clone3: 435, ioctl: 29,
  },
  arm: {
    unshare: 337, setns: 375, mount: 21, umount2: 52, pivot_root: 218, chroot: 61, move_mount: 429, open_tree: 428,
    fsopen: 430, fsconfig: 431, fsmount: 432, fspick: 433, mount_setattr: 442, ptrace: 26,
    process_vm_readv: 376, process_vm_writev: 377, kcmp: 378, pidfd_getfd: 438, perf_event_open: 364, bpf: 386,
    lookup_dcookie: 249, keyctl: 311, add_key: 309, request_key: 310, init_module: 128, finit_module: 379,
    delete_module: 129, kexec_load: 347, kexec_file_load: 401, reboot: 88, userfaultfd: 388,
    open_by_handle_at: 371, name_to_handle_at: 370, swapon: 87, swapoff: 115, syslog: 103, acct: 51,
    settimeofday: 79, clock_settime: 262, clock_settime64: 404, clock_adjtime: 372, clock_adjtime64: 405,
    quotactl: 131, quotactl_fd: 443, nfsservctl: 169, _sysctl: 149, uselib: 86, io_uring_setup: 425,
    io_uring_enter: 426, io_uring_register: 427, fanotify_init: 367, vhangup: 111, sethostname: 74,
    setdomainname: 121, clone: 120, clone3: 435, ioctl: 54,
  },
};

/** `AUDIT_ARCH_*` values (linux/audit.h) of the architectures handled. */
export const AUDIT_ARCH = {
  x86_64: 0xc000003e,
  i386: 0x40000003,
  aarch64: 0xc00000b7,
  arm: 0x40000028,
} as const;

/** Namespace flags `clone` may not ask for (CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET). */
export const CLONE_NAMESPACE_FLAGS =
  0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;
/** `ioctl` requests refused: TIOCSTI (fake terminal input) and TIOCLINUX. */
export const DENIED_IOCTLS = [0x5412, 0x541c] as const;
/** x32 system calls on x86_64 carry this bit in their number. */
const X32_SYSCALL_BIT = 0x40000000;

const EPERM = 1;
const ENOSYS = 38;
/** Filter return values (linux/seccomp.h). */
export const SECCOMP_RET = {
  KILL_PROCESS: 0x80000000,
  ERRNO: 0x00050000,
  ALLOW: 0x7fff0000,
} as const;

// Classic BPF opcodes (linux/filter.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;

// Offsets in struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6].
const OFF_NR = 0;
const OFF_ARCH = 4;
/** The low 32 bits of argument `i` (little-endian: every architecture handled here). */
const offArgLow = (i: number) => 16 + 8 * i;

/** One BPF instruction; `jt`/`jf` may name a label, resolved by {@link assemble}. */
interface Insn {
  code: number;
  jt?: number | string;
  jf?: number | string;
  k: number;
  label?: string;
}

/** Resolves labels into relative jump offsets and encodes `struct sock_filter` (8 bytes each, little-endian). */
function assemble(prog: Insn[]): Buffer {
  const at = new Map<string, number>();
  prog.forEach((insn, i) => {
    if (insn.label) at.set(insn.label, i);
  });
  const buf = Buffer.alloc(prog.length * 8);
  prog.forEach((insn, i) => {
    const jump = (j: number | string | undefined): number => {
      if (j === undefined) return 0;
      if (typeof j === 'number') return j;
      const target = at.get(j);
      if (target === undefined) throw new Error(`seccomp: no label ${j}`);
      const off = target - i - 1;
      if (off < 0 || off > 255) throw new Error(`seccomp: jump to ${j} out of range (${off})`);
      return off;
    };
    buf.writeUInt16LE(insn.code, i * 8);
    buf.writeUInt8(jump(insn.jt), i * 8 + 2);
    buf.writeUInt8(jump(insn.jf), i * 8 + 3);
    buf.writeUInt32LE(insn.k >>> 0, i * 8 + 4);
  });
  return buf;
}

const ret = (k: number, label?: string): Insn => ({ code: RET_K, k, ...(label ? { label } : {}) });
const errno = (e: number) => SECCOMP_RET.ERRNO | e;

/** The checks of one architecture, starting at label `arch`. */
function archBlock(arch: keyof typeof NUMBERS, x32Check: boolean): Insn[] {
  const nums = NUMBERS[arch];
  const out: Insn[] = [{ code: LD_W_ABS, k: OFF_NR, label: arch }];
  if (x32Check) out.push({ code: JGE_K, k: X32_SYSCALL_BIT, jt: 0, jf: 1 }, ret(errno(EPERM)));
  for (const name of DENIED_SYSCALLS) {
    const nr = nums[name];
    if (nr !== undefined) out.push({ code: JEQ_K, k: nr, jt: 0, jf: 1 }, ret(errno(EPERM)));
  }
  out.push({ code: JEQ_K, k: nums.clone3!, jt: 0, jf: 1 }, ret(errno(ENOSYS)));
  // clone: the flags are the first argument on every architecture handled here.
  out.push(
    { code: JEQ_K, k: nums.clone!, jt: 0, jf: 3 },
    { code: LD_W_ABS, k: offArgLow(0) },
    { code: JSET_K, k: CLONE_NAMESPACE_FLAGS, jt: 0, jf: 1 },
    ret(errno(EPERM)),
  );
  // After the clone check the accumulator may hold the flags: reload the number.
  out.push({ code: LD_W_ABS, k: OFF_NR });
  out.push({ code: JEQ_K, k: nums.ioctl!, jt: 0, jf: 1 + 2 * DENIED_IOCTLS.length });
  out.push({ code: LD_W_ABS, k: offArgLow(1) });
  for (const request of DENIED_IOCTLS) out.push({ code: JEQ_K, k: request, jt: 0, jf: 1 }, ret(errno(EPERM)));
  out.push(ret(SECCOMP_RET.ALLOW));
  return out;
}

/** The architectures a filter for `nodeArch` (`process.arch`) handles, native first; null when unsupported. */
export function filterArchitectures(nodeArch: string): (keyof typeof NUMBERS)[] | null {
  if (nodeArch === 'x64') return ['x86_64', 'i386'];
  if (nodeArch === 'arm64') return ['aarch64', 'arm'];
  return null;
}

/**
 * The filter program for this machine (`process.arch` by default) as bwrap reads it from `--seccomp FD`: an
 * array of `struct sock_filter`. @returns null on an architecture this module has no numbers for
 */
export function seccompProgram(nodeArch: string = process.arch): Buffer | null {
  const arches = filterArchitectures(nodeArch);
  if (arches === null) return null;
  const prog: Insn[] = [{ code: LD_W_ABS, k: OFF_ARCH }];
  for (const arch of arches) prog.push({ code: JEQ_K, k: AUDIT_ARCH[arch], jt: arch, jf: 0 });
  prog.push(ret(SECCOMP_RET.KILL_PROCESS));
  for (const arch of arches) prog.push(...archBlock(arch, arch === 'x86_64'));
  return assemble(prog);
}

/** The syscall number of `name` under `arch`, for tests and docs; undefined when it does not exist there. */
export function syscallNumber(arch: keyof typeof NUMBERS, name: SyscallName): number | undefined {
  return NUMBERS[arch][name];
}

/**
 * Calls of {@link DENIED_SYSCALLS} that bwrap itself needs while it builds the sandbox (namespaces, mounts, the
 * root switch, the host name): a container profile that runs the worker (worker-seccomp.json) must allow these,
 * and the sandbox's own filter then refuses them to commands.
 */
export const BWRAP_NEEDS = [
  'unshare',
  'mount',
  'umount',
  'umount2',
  'pivot_root',
  'chroot',
  'sethostname',
] as const;

/**
 * The Docker seccomp profile of the worker container (docker-compose.yml): every call is allowed except
 * {@link DENIED_SYSCALLS} less {@link BWRAP_NEEDS}, which answer EPERM, for the host's architecture and its
 * 32-bit one. Written to `worker-seccomp.json` (a test keeps the file equal to this).
 */
export function containerSeccompProfile(): Record<string, unknown> {
  const needs: readonly string[] = BWRAP_NEEDS;
  return {
    defaultAction: 'SCMP_ACT_ALLOW',
    archMap: [
      { architecture: 'SCMP_ARCH_X86_64', subArchitectures: ['SCMP_ARCH_X86', 'SCMP_ARCH_X32'] },
      { architecture: 'SCMP_ARCH_AARCH64', subArchitectures: ['SCMP_ARCH_ARM'] },
    ],
    syscalls: [
      {
        names: DENIED_SYSCALLS.filter((n) => !needs.includes(n)),
        action: 'SCMP_ACT_ERRNO',
        errnoRet: 1,
      },
    ],
  };
}
