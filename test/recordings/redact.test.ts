import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_REDACTION, REDACTED, redact, redactUrl } from '../../recordings/index.js';

describe('redact', () => {
  it('replaces the values of secret keys, whatever their spelling or type', () => {
    const out = redact({
      Authorization: 'Basic x',
      'proxy-authorization': 'y',
      'x-api-key': 'k',
      apiKey: 'k',
      API_KEY: 'k',
      access_token: 't',
      client_secret: { nested: 's' },
      'faultline/credential': 'c',
      'set-cookie': ['a', 'b'],
      token: null,
    });

    expect(out).toEqual({
      Authorization: REDACTED,
      'proxy-authorization': REDACTED,
      'x-api-key': REDACTED,
      apiKey: REDACTED,
      API_KEY: REDACTED,
      access_token: REDACTED,
      client_secret: REDACTED,
      'faultline/credential': REDACTED,
      'set-cookie': REDACTED,
      token: null,
    });
  });

  it('leaves keys that only contain a secret word alone', () => {
    const value = {
      max_tokens: 100,
      tokenCount: 3,
      secretName: 'db',
      'faultline/idempotency-key': 'k1',
      passwordPolicy: 'strong',
    };
    expect(redact(value)).toEqual(value);
  });

  it('scrubs bearer tokens and sk- keys inside any string', () => {
    expect(
      redact(['use Bearer abc.DEF-123= now', 'key sk-proj-ABCDEFGH1234 here', 'sk-short']),
    ).toEqual([`use ${REDACTED} now`, `key ${REDACTED} here`, 'sk-short']);
  });

  it('takes caller keys and patterns instead of the defaults', () => {
    const options = { keys: ['ssn'], patterns: [/\d{3}-\d{2}-\d{4}/] };
    expect(
      redact({ ssn: 'x', token: 't', note: 'id 123-45-6789 and 987-65-4321' }, options),
    ).toEqual({
      ssn: REDACTED,
      token: 't',
      note: `id ${REDACTED} and ${REDACTED}`,
    });
  });

  it('redacts secret query values and passwords in URLs, readably', () => {
    expect(redactUrl('http://u:pw@127.0.0.1:8/a?token=x&q=Bearer%20y&access_token=z#f')).toBe(
      'http://u:REDACTED@127.0.0.1:8/a?token=[REDACTED]&q=Bearer%20y&access_token=[REDACTED]#f',
    );
    expect(redactUrl('not a url, Bearer abc')).toBe(`not a url, ${REDACTED}`);
  });

  it('never lets a secret under a secret key through, wherever it sits (property)', () => {
    const secret = 'S3CR3T-VALUE';
    const key = fc.constantFrom(...DEFAULT_REDACTION.keys, 'X-Api-Key', 'refresh_token');
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue({ maxDepth: 1 }),
        fc.array(tie('value'), { maxLength: 3 }),
        fc.dictionary(fc.string({ maxLength: 6 }), tie('value'), { maxKeys: 3 }),
        key.map((k) => ({ [k]: secret })),
      ),
    })).value;

    fc.assert(
      fc.property(json, key, (value, k) => {
        const out = JSON.stringify(redact([value, { [k]: { deep: secret } }]));
        expect(out).not.toContain(secret);
        expect(redact(redact(value))).toEqual(redact(value));
      }),
    );
  });
});
