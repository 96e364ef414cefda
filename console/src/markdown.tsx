import type { ComponentChildren, VNode } from 'preact'

/**
 * Markdown as elements, never as HTML: the text can only become text nodes and a fixed set of
 * tags, so an artifact cannot inject markup or script. Links keep http(s) and mailto only.
 * Covers headings, paragraphs, lists, block quotes, fenced code, inline code, bold, italics, links.
 */
export const Markdown = (props: { text: string }) => <div class="markdown">{blocks(props.text)}</div>

const blocks = (text: string): VNode[] => {
  const lines = text.replace(/\r\n?/g, '\n').split('\n')
  const out: VNode[] = []
  let i = 0
  while (i < lines.length) {
    const line = lines[i]!
    const fence = /^```/.exec(line)
    if (fence) {
      const code: string[] = []
      for (i++; i < lines.length && !/^```/.test(lines[i]!); i++) code.push(lines[i]!)
      i++
      out.push(
        <pre>
          <code>{code.join('\n')}</code>
        </pre>,
      )
      continue
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line)
    if (heading) {
      const Tag = `h${Math.min(6, heading[1]!.length + 2)}` as 'h3'
      out.push(<Tag>{inline(heading[2]!)}</Tag>)
      i++
      continue
    }
    const list = /^\s*([-*+]|\d+\.)\s+/.exec(line)
    if (list) {
      const ordered = /\d/.test(list[1]!)
      const items: VNode[] = []
      while (i < lines.length && /^\s*([-*+]|\d+\.)\s+/.test(lines[i]!)) {
        items.push(<li>{inline(lines[i]!.replace(/^\s*([-*+]|\d+\.)\s+/, ''))}</li>)
        i++
      }
      out.push(ordered ? <ol>{items}</ol> : <ul>{items}</ul>)
      continue
    }
    if (/^>\s?/.test(line)) {
      const quoted: string[] = []
      for (; i < lines.length && /^>\s?/.test(lines[i]!); i++) quoted.push(lines[i]!.replace(/^>\s?/, ''))
      out.push(<blockquote>{blocks(quoted.join('\n'))}</blockquote>)
      continue
    }
    if (line.trim() === '') {
      i++
      continue
    }
    const paragraph: string[] = []
    for (
      ;
      i < lines.length && lines[i]!.trim() !== '' && !/^(#{1,6}\s|```|>|\s*([-*+]|\d+\.)\s)/.test(lines[i]!);
      i++
    )
      paragraph.push(lines[i]!)
    if (paragraph.length === 0) paragraph.push(lines[i++]!)
    out.push(<p>{inline(paragraph.join(' '))}</p>)
  }
  return out
}

const INLINE = /`([^`]+)`|\*\*([^*]+)\*\*|\*([^*]+)\*|_([^_]+)_|\[([^\]]+)\]\(([^)\s]+)\)/

const inline = (text: string): ComponentChildren[] => {
  const out: ComponentChildren[] = []
  let rest = text
  for (let match = INLINE.exec(rest); match; match = INLINE.exec(rest)) {
    if (match.index > 0) out.push(rest.slice(0, match.index))
    const [, code, bold, em, em2, label, href] = match
    if (code !== undefined) out.push(<code>{code}</code>)
    else if (bold !== undefined) out.push(<strong>{inline(bold)}</strong>)
    else if (em !== undefined || em2 !== undefined) out.push(<em>{inline((em ?? em2)!)}</em>)
    else if (/^(https?:|mailto:)/i.test(href!))
      out.push(
        <a href={href} rel="noopener noreferrer" target="_blank">
          {inline(label!)}
        </a>,
      )
    else out.push(`[${label}](${href})`)
    rest = rest.slice(match.index + match[0].length)
  }
  if (rest) out.push(rest)
  return out
}
