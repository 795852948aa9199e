-- Takes the lock and issues its fence in one atomic step, so no other acquirer can be
-- handed a token between the two (a paused acquirer must never end up with a higher token
-- than the real holder).
--
-- KEYS[1]  lock key             holds the owner's UUID, expires after the TTL
-- KEYS[2]  fence counter key    never expires: the fence must keep growing across tenures
-- ARGV[1]  owner (a UUID)
-- ARGV[2]  TTL in milliseconds
--
-- Returns the new fence (> 0) when the lock was taken; otherwise minus the remaining TTL
-- of the current holder in milliseconds (<= 0; 0 when unknown), a hint for waiters.
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  local fence = redis.pcall('INCR', KEYS[2])
  if type(fence) == 'table' and fence.err then
    -- The counter is unusable (wrong type, overflow). Scripts do not roll back, so undo
    -- the SET by hand: a lock without a fence must not stay behind.
    redis.call('DEL', KEYS[1])
    return fence
  end
  return fence
end
local pttl = redis.call('PTTL', KEYS[1])
if pttl < 0 then
  pttl = 0
end
return -pttl
