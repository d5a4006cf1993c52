// Rows that rocprof lists among the kernels but that are other queue packets: legacy v1 names barrier and
// unknown packets `<barrier packet>`, `<barrier-and packet>`, `Unknown command type`. No kernel name is a bare
// phrase of words in angle brackets, so those are recognised by shape (markup-like names such as
// `<svg onload=...>` are not: they stay kernels and are shown as text).
export function isPseudoKernel(name: string): boolean {
  const t = name.trim();
  return /^<[A-Za-z][A-Za-z _-]*>$/.test(t) || /^unknown command type$/i.test(t);
}
