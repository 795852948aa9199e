-- Takes the lock and issues its fence in one atomic step, so no other acquirer can be
-- handed a token between the two (a paused acquirer must never end up with a higher token
-- than the real holder).
--
-- The fence is max(counter + 1, now), now being the Redis server's clock (TIME) in
-- microseconds since the Unix epoch. The counter alone goes back when Redis loses its most
-- recent writes (a restart from an older snapshot, a failover to a replica that missed the
-- last writes), and would then issue a fence again; the clock does not go back with it, so
-- the fence issued after the loss is larger than every fence issued before it, provided
--   * no more than one fence per microsecond was issued for the resource (one script runs
--     at a time and takes several microseconds: a single Redis cannot), so the counter
--     never ran ahead of the clock, and
--   * the clock of the server issuing after the loss is not behind the clock of the one
--     that issued the lost fences by more than the time between the last lost fence and
--     the first fence after the loss (a restart or failover takes at least that long).
--
-- KEYS[1]  lock key             holds the owner's UUID, expires after the TTL
-- KEYS[2]  fence counter key    the last fence issued; never expires
-- ARGV[1]  owner (a UUID)
-- ARGV[2]  TTL in milliseconds
--
-- Returns the new fence (> 0) when the lock was taken; otherwise minus the remaining TTL
-- of the current holder in milliseconds (<= 0; 0 when unknown), a hint for waiters.
local LARGEST_EXACT = 9007199254740992 -- 2^53: Lua numbers are doubles

if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  local pttl = redis.call('PTTL', KEYS[1])
  if pttl < 0 then
    pttl = 0
  end
  return -pttl
end

local stored = redis.pcall('GET', KEYS[2])
local counter = 0
local problem = nil
if type(stored) == 'table' and stored.err then
  problem = stored.err
elseif stored then
  counter = tonumber(stored)
  if counter == nil or counter < 0 or counter >= LARGEST_EXACT or counter ~= math.floor(counter) then
    problem = 'it holds ' .. stored .. ', not an integer from 0 to 2^53'
  end
end
if problem then
  -- Scripts do not roll back, so undo the SET by hand: a lock without a fence must not
  -- stay behind.
  redis.call('DEL', KEYS[1])
  return redis.error_reply('FENCECOUNTER the fence counter ' .. KEYS[2] .. ' is unusable: ' .. problem)
end

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local fence = counter + 1
if now > fence then
  fence = now
end
redis.call('SET', KEYS[2], string.format('%.0f', fence))
return fence
