# cachefollower: Facebook Cache Follower (CF), ExpressPass version
# measured in: A. Roy, H. Zeng, J. Bagga, G. Porter, A. C. Snoeren, "Inside the Social Network's (Datacenter) Network", ACM SIGCOMM 2015 (per-service flow-size CDFs)
# tabulation: https://github.com/kaist-ina/ns2-xpass (branch master, snapshot commit f4e38bcba7bd97f5c7dc80f8e2617008717d02c7) workloads/workload_cachefollower.tcl (last changed in commit 2c64ed8be5da097f9f8debaf4cb0d26eb764d290)
# interpolation: linear
70 0.0
70 0.01
150 0.015
150 0.04
300 0.08
350 0.1
350 0.19
450 0.2
500 0.28
600 0.3
700 0.35
1100 0.4
2000 0.42
10000 0.48
30000 0.5
100000 0.52
200000 0.6
400000 0.68
600000 0.7
1500000 0.701
2000000 0.8
2400000 0.9
3000000 1.0
