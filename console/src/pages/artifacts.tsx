import { useEffect, useState } from 'preact/hooks'
import { clawpedia, describe, send } from '../api.ts'
import { Markdown } from '../markdown.tsx'
import { Json, Notice } from '../ui.tsx'

export interface ClawpediaArtifact {
  artifact_id: string
  type: 'file' | 'log' | 'url' | 'text' | 'json'
  content: string
  metadata: { created_at: string; filename?: string; mime_type?: string; description?: string }
}

const isMarkdown = (a: ClawpediaArtifact) =>
  a.metadata.mime_type === 'text/markdown' || /\.(md|markdown)$/i.test(a.metadata.filename ?? '')

/** The content, fetched with the operator's credential (a link could not carry it). */
const contentOf = (slug: string, artifact: ClawpediaArtifact) =>
  send(clawpedia(slug, `/artifacts/${artifact.artifact_id}/content`))

/**
 * A file artifact: images (SVG included) previewed through <img> from a blob: URL, which never
 * runs a script an SVG may hold; Markdown and text shown as text; everything downloadable.
 */
const FileArtifact = (props: { slug: string; artifact: ClawpediaArtifact }) => {
  const { artifact } = props
  const type = artifact.metadata.mime_type ?? 'application/octet-stream'
  const [preview, setPreview] = useState<{ url?: string; text?: string; error?: string }>({})
  useEffect(() => {
    let url: string | undefined
    let live = true
    const textual = isMarkdown(artifact) || type.startsWith('text/')
    if (!type.startsWith('image/') && !textual) return
    contentOf(props.slug, artifact)
      .then(async (response) => {
        if (!live) return
        if (textual) setPreview({ text: await response.text() })
        else {
          // The bytes under the declared type, so that <img> decodes an SVG as an image.
          url = URL.createObjectURL(new Blob([await response.arrayBuffer()], { type }))
          setPreview({ url })
        }
      })
      .catch((error: unknown) => live && setPreview({ error: describe(error) }))
    return () => {
      live = false
      if (url) URL.revokeObjectURL(url)
    }
  }, [props.slug, artifact.artifact_id])

  const download = async () => {
    const blob = await (await contentOf(props.slug, artifact)).blob()
    const url = URL.createObjectURL(blob)
    const link = document.createElement('a')
    link.href = url
    link.download = artifact.metadata.filename ?? artifact.artifact_id
    link.click()
    setTimeout(() => URL.revokeObjectURL(url), 10_000)
  }
  return (
    <>
      {preview.url && (
        <img class="preview" src={preview.url} alt={artifact.metadata.filename ?? 'image artifact'} />
      )}
      {preview.text !== undefined &&
        (isMarkdown(artifact) ? <Markdown text={preview.text} /> : <pre>{preview.text}</pre>)}
      {preview.error && <Notice kind="error">{preview.error}</Notice>}
      <button type="button" onClick={download}>
        Download {artifact.metadata.filename ?? 'file'}
      </button>
    </>
  )
}

const Body = (props: { slug: string; artifact: ClawpediaArtifact }) => {
  const { artifact } = props
  switch (artifact.type) {
    case 'file':
      return <FileArtifact {...props} />
    case 'json':
      return <Json value={JSON.parse(artifact.content)} />
    case 'url':
      return /^https?:/i.test(artifact.content) ? (
        <a href={artifact.content} rel="noopener noreferrer" target="_blank">
          {artifact.content}
        </a>
      ) : (
        <code>{artifact.content}</code>
      )
    default:
      return isMarkdown(artifact) ? <Markdown text={artifact.content} /> : <pre>{artifact.content}</pre>
  }
}

export const Artifacts = (props: { slug: string; artifacts: ClawpediaArtifact[] }) =>
  props.artifacts.length === 0 ? (
    <p class="muted">None.</p>
  ) : (
    <ul class="artifacts">
      {props.artifacts.map((artifact) => (
        <li key={artifact.artifact_id}>
          <p>
            <strong>{artifact.metadata.filename ?? artifact.type}</strong>{' '}
            <span class="muted">
              {artifact.type}
              {artifact.metadata.mime_type ? `, ${artifact.metadata.mime_type}` : ''}
              {artifact.metadata.description ? ` — ${artifact.metadata.description}` : ''}
            </span>
          </p>
          <Body slug={props.slug} artifact={artifact} />
        </li>
      ))}
    </ul>
  )
