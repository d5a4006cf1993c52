// Rows that rocprof lists among the kernels but that are other queue packets: legacy v1 names barrier and
// unknown packets `<barrier packet>`, `<barrier-and packet>`, `Unknown command type`. No kernel name is only
// an angle-bracketed phrase, so those are recognised by shape.
export function isPseudoKernel(name: string): boolean {
  const t = name.trim();
  return /^<[^<>]+>$/.test(t) || /^unknown command type$/i.test(t);
}
