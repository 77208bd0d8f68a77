-- wrk: every request reads one conversation: $ROCKET_BENCH_READ holds its visitor's token and its
-- id, separated by a space.
local token, id = nil, nil

function init(args)
  token, id = string.match(os.getenv("ROCKET_BENCH_READ") or "", "(%S+)%s+(%S+)")
end

function request()
  return wrk.format("GET", "/v1/conversations/" .. id, {["Rocket-Visitor"] = token})
end
