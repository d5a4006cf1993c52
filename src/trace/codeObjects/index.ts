// AMDGPU code objects: kernel metadata (registers, LDS, scratch, ...), an occupancy estimate, disassembly.
// vscode-free; used by the CLI (`kernel-runner isa`) and the extension (the profile panel's Kernels (ISA)).
export { CodeObjectError } from './errors';
export {
  readCodeObjectsPath,
  loadCodeObjectsPath,
  readCodeObjectBuffer,
  type CodeObjectInfo,
  type CodeObjectKernel,
  type CodeObjectReport,
  type LoadedCodeObject,
} from './read';
export { limitsFor, type OccupancyEstimate } from './occupancy';
export {
  findObjdump,
  disassembleKernel,
  DisassemblyError,
  HOW_TO_GET_OBJDUMP,
  LLVM_DIRS,
  type FindObjdumpOptions,
} from './disassemble';
export { matchKernels } from './match';
export { parseListing, type ListedInstruction } from './listing';
