// Which kernels of a multi-GPU job communicate: the one place that decides it, for the per-rank summary, the
// digest and the CLI. By name, as that is all a kernel trace gives: RCCL's device kernels (`ncclDevKernel_*`,
// older `ncclKernel_*`, mangled or not), rocSHMEM's (its namespace or `rocshmem_` calls), and a submission's own
// collectives named for what they do (all-to-all, all-reduce, all-gather, reduce-scatter, vLLM-style
// `cross_device_reduce`). Every other kernel is compute.
import type { KernelRole } from '../core/protocol/traceSummary';

const RCCL = /nccl(?:Dev)?Kernel_/;
const ROCSHMEM = /roc_?shmem/i;
const OWN_COLLECTIVE =
  /all_?to_?all|all2all|all_?reduce|all_?gather|reduce_?scatter|cross_device_reduce|(?:^|[^a-z])a2a(?:[^a-z]|$)/i;

export type CommunicationLibrary = 'rccl' | 'rocshmem' | 'own';

/** The library a communication kernel belongs to, null for a compute kernel. */
export function communicationLibrary(kernelName: string): CommunicationLibrary | null {
  if (RCCL.test(kernelName)) return 'rccl';
  if (ROCSHMEM.test(kernelName)) return 'rocshmem';
  if (OWN_COLLECTIVE.test(kernelName)) return 'own';
  return null;
}

export function kernelRole(kernelName: string): KernelRole {
  return communicationLibrary(kernelName) === null ? 'compute' : 'communication';
}
