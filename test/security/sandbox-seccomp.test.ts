/**
 * The seccomp filter: the program itself, run through a classic-BPF interpreter for every architecture it
 * handles (denied calls answer EPERM, `clone` only with namespace flags, `clone3` ENOSYS, TIOCSTI refused, x32
 * refused, an unknown architecture killed), and in the real sandbox: no nested user namespace (`unshare -U`), no
 * mount, as root and as another uid (1000); ordinary programs (fork, pipes, python3) still work.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  AUDIT_ARCH,
  BWRAP_NEEDS,
  CLONE_NAMESPACE_FLAGS,
  containerSeccompProfile,
  DENIED_SYSCALLS,
  SECCOMP_RET,
  seccompProgram,
  syscallNumber,
} from '../../activities/tools/seccomp.ts';
import { runAsUid, runInSandbox } from './support/run-as.ts';

/** Runs a classic-BPF seccomp program on one `struct seccomp_data`. */
function evaluate(prog: Buffer, data: { nr: number; arch: number; args?: number[] }): number {
  const word = (off: number): number => {
    if (off === 0) return data.nr >>> 0;
    if (off === 4) return data.arch >>> 0;
    const i = (off - 16) / 8;
    if (Number.isInteger(i) && i >= 0 && i < 6) return (data.args?.[i] ?? 0) >>> 0;
    if (Number.isInteger((off - 20) / 8)) return 0; // high halves
    throw new Error(`load at ${off}`);
  };
  let a = 0;
  for (let pc = 0; pc < prog.length / 8;) {
    const code = prog.readUInt16LE(pc * 8);
    const jt = prog.readUInt8(pc * 8 + 2);
    const jf = prog.readUInt8(pc * 8 + 3);
    const k = prog.readUInt32LE(pc * 8 + 4);
    switch (code) {
      case 0x20:
        a = word(k);
        pc += 1;
        break;
      case 0x15:
        pc += 1 + (a === k ? jt : jf);
        break;
      case 0x35:
        pc += 1 + (a >= k ? jt : jf);
        break;
      case 0x45:
        pc += 1 + ((a & k) !== 0 ? jt : jf);
        break;
      case 0x06:
        return k >>> 0;
      default:
        throw new Error(`opcode ${code}`);
    }
  }
  throw new Error('fell off the program');
}

const EPERM = (SECCOMP_RET.ERRNO | 1) >>> 0;
const ENOSYS = (SECCOMP_RET.ERRNO | 38) >>> 0;
const CLONE_NEWUSER = 0x10000000;

describe('the seccomp program', () => {
  for (const [nodeArch, arches] of [
    ['x64', ['x86_64', 'i386']],
    ['arm64', ['aarch64', 'arm']],
  ] as const) {
    it(`${nodeArch}: refuses the denied calls with EPERM under ${arches.join(' and ')}, allows the rest`, () => {
      const prog = seccompProgram(nodeArch)!;
      expect(prog.length % 8).toBe(0);
      for (const arch of arches) {
        const run = (nr: number, args?: number[]) => evaluate(prog, { nr, arch: AUDIT_ARCH[arch], args });
        let denied = 0;
        for (const name of DENIED_SYSCALLS) {
          const nr = syscallNumber(arch, name);
          if (nr === undefined) continue;
          expect(run(nr), `${arch} ${name}`).toBe(EPERM);
          denied += 1;
        }
        expect(denied).toBeGreaterThan(45);
        const clone = syscallNumber(arch, 'clone')!;
        expect(run(clone, [CLONE_NEWUSER])).toBe(EPERM);
        expect(run(clone, [CLONE_NAMESPACE_FLAGS])).toBe(EPERM);
        expect(run(clone, [0x01200011])).toBe(SECCOMP_RET.ALLOW); // fork(): CLONE_CHILD_SETTID|CLEARTID|SIGCHLD
        expect(run(syscallNumber(arch, 'clone3')!)).toBe(ENOSYS);
        const ioctl = syscallNumber(arch, 'ioctl')!;
        expect(run(ioctl, [1, 0x5412])).toBe(EPERM);
        expect(run(ioctl, [1, 0x5401])).toBe(SECCOMP_RET.ALLOW); // TCGETS
        // read, write, openat-ish numbers that are not denied.
        for (const nr of [0, 1, 3, 63, 64]) {
          if (DENIED_SYSCALLS.some((n) => syscallNumber(arch, n) === nr)) continue;
          if ([clone, ioctl, syscallNumber(arch, 'clone3')].includes(nr)) continue;
          expect(run(nr), `${arch} nr ${nr}`).toBe(SECCOMP_RET.ALLOW);
        }
      }
      expect(evaluate(prog, { nr: 0, arch: 0xdeadbeef })).toBe(SECCOMP_RET.KILL_PROCESS);
    });
  }

  it('x86_64: x32 calls are refused', () => {
    expect(evaluate(seccompProgram('x64')!, { nr: 0x40000000 + 1, arch: AUDIT_ARCH.x86_64 })).toBe(EPERM);
  });

  it("the worker container's Docker profile (worker-seccomp.json) refuses the same calls, except what bwrap needs to build the sandbox", () => {
    const file = JSON.parse(
      fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'worker-seccomp.json'), 'utf8'),
    );
    expect(file).toEqual(containerSeccompProfile());
    const names = (file.syscalls as { names: string[] }[])[0]!.names;
    for (const needed of BWRAP_NEEDS) expect(names).not.toContain(needed);
    for (const name of ['ptrace', 'bpf', 'keyctl', 'setns', 'userfaultfd', 'open_by_handle_at', 'kexec_load'])
      expect(names).toContain(name);
  });

  it('no program for an architecture without numbers', () => {
    expect(seccompProgram('riscv64')).toBeNull();
  });
});

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const ATTEMPTS =
  'unshare -U true; echo "unshare-U=$?"; unshare -r id; echo "unshare-r=$?"; ' +
  'mkdir -p m; mount -t tmpfs none m; echo "mount=$?"; ' +
  '(echo piped | cat) && sh -c "echo forked" && echo ok';

function expectRefused(out: string): void {
  expect(out).toMatch(/unshare-U=[1-9]/);
  expect(out).toMatch(/unshare-r=[1-9]/);
  expect(out).toMatch(/mount=[1-9]/);
  expect(out).not.toMatch(/uid=0\(root\)/);
  expect(out).toContain('piped');
  expect(out).toContain('forked');
  expect(out).toContain('ok');
}

describe('in the sandbox', () => {
  it('as root: no nested user namespace, no mount; ordinary programs work', async () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-seccomp-'));
    dirs.push(base);
    const r = await runInSandbox(path.join(base, 'data'), ATTEMPTS);
    expectRefused(r.content);
    expect(r.content).toMatch(/unshare failed: Operation not permitted/);
  }, 60_000);

  it.runIf(process.getuid?.() === 0)(
    'as uid 1000: no nested user namespace, no mount; ordinary programs work',
    async () => {
      const base = fs.mkdtempSync(path.join(os.tmpdir(), 'kesoku-seccomp-user-'));
      dirs.push(base);
      const out = await runAsUid(1000, base, ATTEMPTS);
      expect(out).toContain('RESULT');
      expectRefused(out);
    },
    60_000,
  );
});
