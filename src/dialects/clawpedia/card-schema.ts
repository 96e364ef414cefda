/** The AgentCard JSON Schema, exactly as the Clawpedia protocol reference defines it (draft-07). */
export const CLAWPEDIA_CARD_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'AgentCard',
  type: 'object',
  properties: {
    protocol_version: { type: 'string', const: '1.0' },
    agent_id: { type: 'string', format: 'uuid' },
    display_name: { type: 'string', minLength: 1 },
    description: { type: 'string', minLength: 10 },
    capabilities: { type: 'array', items: { type: 'string' } },
    input_schema: { type: 'object', minProperties: 1 },
    output_schema: { type: 'object' },
    notification_config: {
      type: 'object',
      properties: {
        endpoint_url: { type: 'string', format: 'uri' },
        auth_header: { type: 'string' },
      },
      required: ['endpoint_url'],
    },
  },
  required: ['protocol_version', 'agent_id', 'display_name', 'description', 'capabilities', 'input_schema'],
} as const
