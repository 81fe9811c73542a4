/**
 * The gateway's auth cache and the identity service agree on these Redis keys: the current generation of
 * each token and each user. Identity raises a generation after it committed a revocation, rotation or role
 * change; the gateway reuses a cached entry only while the generations it was read at are still current
 * (a missing key counts as "not current"). Generations only ever go up: both sides write them through
 * RAISE_GENERATION, so a late writer holding an older value can never lower one.
 */
export const generationKey = {
  token: (tokenId: string) => `assay:auth:gen:t:${tokenId}`,
  user: (userId: string) => `assay:auth:gen:u:${userId}`,
};

/** Far longer than any cached entry lives (AUTH_CACHE_TTL_SECONDS), so a generation never vanishes under one. */
export const GENERATION_TTL_SECONDS = 7 * 24 * 3600;

/** KEYS[1] = generation key; ARGV[1] = generation; ARGV[2] = TTL seconds. Sets the key unless it holds more. */
export const RAISE_GENERATION = `
local current = tonumber(redis.call('GET', KEYS[1]) or '-1')
if tonumber(ARGV[1]) > current then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
else
  redis.call('EXPIRE', KEYS[1], ARGV[2])
end
return 1`;

/**
 * The gateway's cache read in one round trip. KEYS[1] = a secret's entry hash; ARGV = its fields. Answers the
 * fields' entries (nil when absent), then the current token and user generations of the first entry that names
 * a token (entries of one secret all name the same token). The generation keys are computed here from the entry,
 * so this needs one Redis (as the chart deploys), not Redis Cluster.
 */
export const READ_CACHED_AUTH = `
local hits = redis.call('HMGET', KEYS[1], unpack(ARGV))
local tid, uid = nil, ''
for i = 1, #ARGV do
  if hits[i] then
    local e = cjson.decode(hits[i])
    if e.tid ~= '-' then tid = e.tid; uid = e.uid; break end
  end
end
local out = {}
for i = 1, #ARGV do out[i] = hits[i] end
out[#ARGV + 1] = tid and redis.call('GET', '${generationKey.token('')}' .. tid) or false
out[#ARGV + 2] = (tid and uid ~= '') and redis.call('GET', '${generationKey.user('')}' .. uid) or false
return out`;
