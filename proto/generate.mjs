// Generates the TypeScript of the gRPC binding (npm run generate:grpc).
//
// buf compiles lf/a2a/v1/a2a.proto with the google/api and google/rpc files it needs (from the
// google-proto-files package; google/protobuf/* are buf's own) and protoc-gen-es writes one
// *_pb.ts per proto file. The protos are copied into a temporary workspace so that buf never sees
// the thousands of unrelated files google-proto-files ships, and the repository needs no buf.yaml.
//
// Usage: node proto/generate.mjs [outDir]   (default: src/dialects/a2a/wire/grpc)
// test/grpc/generated.test.ts runs it into a temp dir and compares with what is committed.
import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const outDir = resolve(process.argv[2] ?? join(root, 'src/dialects/a2a/wire/grpc'))
const googleProtos = join(root, 'node_modules/google-proto-files')

// The imports of a2a.proto (google/api/*) and what the error model sends in the
// grpc-status-details-bin trailer (google/rpc/status, error_details), with their own imports.
const googleFiles = [
  'google/api/annotations.proto',
  'google/api/http.proto',
  'google/api/client.proto',
  'google/api/launch_stage.proto',
  'google/api/field_behavior.proto',
  'google/rpc/status.proto',
  'google/rpc/error_details.proto',
]

const work = mkdtempSync(join(tmpdir(), 'switchboard-grpc-gen-'))
try {
  const protoDir = join(work, 'proto')
  cpSync(join(root, 'proto/lf'), join(protoDir, 'lf'), { recursive: true })
  for (const file of googleFiles) {
    mkdirSync(dirname(join(protoDir, file)), { recursive: true })
    cpSync(join(googleProtos, file), join(protoDir, file))
  }
  writeFileSync(join(work, 'buf.yaml'), 'version: v2\nmodules:\n  - path: proto\n')
  writeFileSync(
    join(work, 'buf.gen.yaml'),
    [
      'version: v2',
      'clean: true',
      'plugins:',
      `  - local: ${JSON.stringify(join(root, 'node_modules/.bin/protoc-gen-es'))}`,
      `    out: ${JSON.stringify(outDir)}`,
      '    opt: [target=ts, import_extension=ts]',
      '',
    ].join('\n'),
  )
  execFileSync(join(root, 'node_modules/.bin/buf'), ['generate'], { cwd: work, stdio: 'inherit' })
} finally {
  rmSync(work, { recursive: true, force: true })
}
