// The profile's "Kernels (ISA)" section: each profiled kernel linked by name to its code object kernel (registers,
// LDS, scratch, occupancy estimate), then the code object kernels that were not profiled. A kernel's name opens its
// disassembly in an editor (the host runs llvm-objdump).
import { dataTable, h, type Child, type TableRow } from './dom';
import { formatBytes } from './format';
import type { IsaKernelView, IsaView, ProfileView } from './protocol';

export interface IsaActions {
  openDisassembly(profileKey: string, codeObject: number, kernel: number): void;
  loadIsa(profileKey: string): void;
}

const na = (n: number | null): string => (n === null ? '–' : String(n));

export function renderIsaSection(p: ProfileView, actions: IsaActions): HTMLElement | null {
  const isa = p.isa;
  if (!isa) return null;
  return h(
    'section',
    { class: 'isa', 'data-isa': p.key, 'data-isa-status': isa.status },
    h('h3', {}, 'Kernels (ISA)'),
    isa.status === 'remote' ? loadButton(p.key, actions) : null,
    isa.note ? h('p', { class: 'note' }, isa.note) : null,
    isa.status === 'ready' ? kernelsTable(p.key, isa, actions) : null,
    isa.unmatched.length
      ? h('p', { class: 'note' }, `Profiled but in no code object: ${isa.unmatched.join(', ')}`)
      : null,
  );
}

function loadButton(profileKey: string, actions: IsaActions): HTMLElement {
  const b = h('button', { type: 'button', 'data-action': 'load-isa' }, 'Read code objects from the trace');
  b.addEventListener('click', () => actions.loadIsa(profileKey));
  return h('div', { class: 'links' }, b);
}

function kernelsTable(profileKey: string, isa: IsaView, actions: IsaActions): HTMLElement {
  const headers = [
    'profiled kernel',
    'code object kernel',
    'target',
    'VGPRs',
    'AGPRs',
    'SGPRs',
    'LDS',
    'scratch',
    'waves/SIMD',
    'limited by',
  ];
  const rows = isa.kernels.map((k) => row(profileKey, isa, k, actions));
  const caption = `Kernels (ISA): ${isa.codeObjects.length} code object${isa.codeObjects.length === 1 ? '' : 's'}; a name opens its disassembly`;
  return dataTable(caption, headers, rows, 'isa-kernels', 'Kernels (ISA)');
}

function row(profileKey: string, isa: IsaView, k: IsaKernelView, actions: IsaActions): TableRow {
  const co = isa.codeObjects[k.codeObject];
  const link = h(
    'button',
    {
      type: 'button',
      class: 'link kernel-link',
      'data-action': 'open-disassembly',
      'data-kernel': k.name,
      title: `${k.name} in ${co?.file ?? '?'}: open its disassembly`,
    },
    k.name,
  );
  link.addEventListener('click', () => actions.openDisassembly(profileKey, k.codeObject, k.kernel));
  const cells: Child[] = [
    k.profiledNames.length ? h('code', {}, k.profiledNames.join(', ')) : h('span', { class: 'note' }, 'not profiled'),
    link,
    `${co?.processor ?? '–'}${co?.bundleEntry ? ' (bundle)' : ''}`,
    na(k.vgprCount),
    na(k.agprCount),
    na(k.sgprCount),
    formatBytes(k.ldsBytes),
    formatBytes(k.scratchBytes),
    k.wavesPerSimd === null ? '–' : `${k.wavesPerSimd}/${k.maxWavesPerSimd ?? '?'}`,
    k.limitedBy || '–',
  ];
  return { cells, attrs: { 'data-isa-kernel': k.name, 'data-profiled': k.profiledNames.length ? 'true' : 'false' } };
}
