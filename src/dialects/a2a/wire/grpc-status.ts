import { create, fromBinary, toBinary } from '@bufbuild/protobuf'
import { anyPack, anyUnpack } from '@bufbuild/protobuf/wkt'
import {
  type BadRequest,
  BadRequestSchema,
  type ErrorInfo,
  ErrorInfoSchema,
} from './grpc/google/rpc/error_details_pb.ts'
import { StatusSchema } from './grpc/google/rpc/status_pb.ts'

/** What a gRPC error of the binding says beyond its code and message (digest §4.4). */
export interface GrpcErrorDetails {
  reason: string
  domain: string
  metadata: Record<string, string>
  violations?: { field: string; description: string }[]
}

/**
 * The `grpc-status-details-bin` trailer: a google.rpc.Status whose details are a
 * google.rpc.ErrorInfo and, for invalid parameters, a google.rpc.BadRequest.
 */
export const encodeStatusDetails = (code: number, message: string, details: GrpcErrorDetails): Buffer => {
  const packed = [
    anyPack(
      ErrorInfoSchema,
      create(ErrorInfoSchema, { reason: details.reason, domain: details.domain, metadata: details.metadata }),
    ),
  ]
  if (details.violations?.length)
    packed.push(anyPack(BadRequestSchema, create(BadRequestSchema, { fieldViolations: details.violations })))
  return Buffer.from(toBinary(StatusSchema, create(StatusSchema, { code, message, details: packed })))
}

/** The ErrorInfo and BadRequest of a `grpc-status-details-bin` trailer, when it has them. */
export const decodeStatusDetails = (
  bytes: Uint8Array,
): { code: number; message: string; errorInfo?: ErrorInfo; badRequest?: BadRequest } => {
  const status = fromBinary(StatusSchema, bytes)
  const out: { code: number; message: string; errorInfo?: ErrorInfo; badRequest?: BadRequest } = {
    code: status.code,
    message: status.message,
  }
  for (const detail of status.details) {
    const info = anyUnpack(detail, ErrorInfoSchema)
    if (info) out.errorInfo = info
    const bad = anyUnpack(detail, BadRequestSchema)
    if (bad) out.badRequest = bad
  }
  return out
}
