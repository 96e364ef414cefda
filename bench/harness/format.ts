import type { Case } from './plan.ts'

export const BINDING_NAMES: Record<Case['binding'], string> = {
  jsonrpc: 'JSON-RPC',
  rest: 'HTTP+JSON',
  grpc: 'gRPC',
  clawpedia: 'Clawpedia REST',
}

export const formatNumber = (value: number, digits = 0): string =>
  Number.isFinite(value)
    ? value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : '–'

export const formatRatio = (value: number): string =>
  Number.isFinite(value) && value > 0 ? `${formatNumber(value, value < 10 ? 2 : 1)}×` : '–'
