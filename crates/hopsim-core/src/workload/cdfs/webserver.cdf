# webserver: Facebook Web Server (WSv), ExpressPass version
# measured in: A. Roy, H. Zeng, J. Bagga, G. Porter, A. C. Snoeren, "Inside the Social Network's (Datacenter) Network", ACM SIGCOMM 2015 (per-service flow-size CDFs)
# tabulation: https://github.com/kaist-ina/ns2-xpass (branch master, snapshot commit f4e38bcba7bd97f5c7dc80f8e2617008717d02c7) workloads/workload_webserver.tcl (last changed in commit 2c64ed8be5da097f9f8debaf4cb0d26eb764d290)
# interpolation: linear
150 0.0
300 0.12
300 0.2
600 0.2
1000 0.3
2000 0.4
3100 0.5
6000 0.6
20000 0.71
60000 0.8
150000 0.82
300000 0.9
500000 1.0
