-- Resets the lock's TTL only while it still belongs to the caller (compare-and-pexpire): a
-- holder whose lock expired must not extend its successor's lock. An expired lock is gone
-- and cannot be extended either: the caller has lost it.
--
-- KEYS[1]  lock key
-- ARGV[1]  owner (a UUID)
-- ARGV[2]  new TTL in milliseconds
--
-- Returns 1 when the TTL was reset, 0 when the caller no longer owned the lock.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
