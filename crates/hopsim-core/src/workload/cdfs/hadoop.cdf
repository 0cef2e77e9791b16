# hadoop: Facebook Hadoop (FbHdp), HPCC version
# measured in: A. Roy, H. Zeng, J. Bagga, G. Porter, A. C. Snoeren, "Inside the Social Network's (Datacenter) Network", ACM SIGCOMM 2015 (per-service flow-size CDFs)
# tabulation: https://github.com/alibaba-edu/High-Precision-Congestion-Control (branch master, snapshot commit 9f4be2a9ead8a90e8bf732c66bd758c00e58e5be) traffic_gen/FbHdp_distribution.txt (last changed in commit 9cf8b9e8c8d04a3775e06c972c4699dcbce53c37)
# interpolation: linear
0 0.0
100 0.01
200 0.02
300 0.05
350 0.15
400 0.2
500 0.3
600 0.4
700 0.5
1000 0.6
2000 0.67
7000 0.7
30000 0.72
50000 0.82
80000 0.87
120000 0.9
300000 0.95
1000000 0.975
2000000 0.99
10000000 1.0
