#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How many files this process may have open: the soft limit, first raised as far as the hard
/// limit allows (up to 65,536). A soft limit of 256 (macOS's default, a CI runner's, `ulimit
/// -Sn 256`) would otherwise end a save of hundreds of files in flight with "Too many open
/// files", each holding its `.part` file, its lock and its share of the connections.
public enum OpenFileBudget {
    public static let limit: Int = {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        let wanted = min(limit.rlim_max, 65_536)
        if limit.rlim_cur < wanted {
            var raised = limit
            raised.rlim_cur = wanted
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }()
}
