-- wrk: every request reads one conversation: $ROCKET_BENCH_READ holds its visitor's token and its
-- id, separated by a space. The request's bytes are made once per thread.
local read = nil

function init(args)
  local token, id = string.match(os.getenv("ROCKET_BENCH_READ") or "", "(%S+)%s+(%S+)")
  read = wrk.format("GET", "/v1/conversations/" .. id, {["Rocket-Visitor"] = token})
end

function request()
  return read
end
